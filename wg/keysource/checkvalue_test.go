package keysource_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
)

// TestCheckValue checks CheckValue against HMAC-SHA256 computed with
// crypto/hmac on the defining input, and that different keys give
// different values.
func TestCheckValue(t *testing.T) {
	var key [32]byte
	for i := range key {
		key[i] = byte(i)
	}
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte("kexlab-wg v1 key check value"))
	want := hex.EncodeToString(m.Sum(nil)[:8])

	src := keysource.NewFile(key, "test")
	got, err := keysource.CheckValue(src)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || len(got) != 2*keysource.CheckValueSize {
		t.Errorf("CheckValue = %q, want %q", got, want)
	}
	key[0] ^= 1
	other, err := keysource.CheckValue(keysource.NewFile(key, "other"))
	if err != nil || other == got {
		t.Errorf("a different key: %q, %v", other, err)
	}
	src.Close()
	if _, err := keysource.CheckValue(src); !errors.Is(err, keysource.ErrClosed) {
		t.Errorf("closed source: %v", err)
	}
}

// TestCheckValueDomain checks that the check value's input is none of the
// inputs package wg derives PSKs from, nor a prefix of one: they differ
// in their label, before any variable field.
func TestCheckValueDomain(t *testing.T) {
	in := []byte(keysource.CheckValueInput)
	var pair, h, fresh [32]byte
	for _, psk := range [][]byte{
		wg.TimestampInput(pair, 0),
		wg.HashRatchetSeedInput(pair, 0),
		wg.HardwareRatchetInput(pair, 0, 0, h),
		wg.FreshInput(pair, 0, 0, h, &fresh),
	} {
		n := len("kexlab-wg v1 ")
		if !bytes.Equal(psk[:n], in[:n]) {
			t.Fatalf("PSK input %q does not share the common prefix", psk[:n])
		}
		if psk[n] == in[n] {
			t.Errorf("PSK input %q has the check value's label byte %q at offset %d", psk, in[n], n)
		}
	}
}
