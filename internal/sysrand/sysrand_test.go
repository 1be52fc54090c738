package sysrand

import (
	"bytes"
	"crypto/rand"
	"testing"
)

func TestOr(t *testing.T) {
	if Or(nil) != rand.Reader {
		t.Error("Or(nil) is not crypto/rand.Reader")
	}
	r := bytes.NewReader(nil)
	if Or(r) != r {
		t.Error("Or(r) is not r")
	}
}
