package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/pake"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestVectorsCommand(t *testing.T) {
	code, out, errOut := runCLI("vectors")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`(?m)^vectors: (\d+) passed, 0 failed$`).FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("no final summary with passes:\n%s", out)
	}
	for _, s := range pake.All() {
		if !strings.Contains(out, s.Info().Name) {
			t.Errorf("no line for %s", s.Info().Name)
		}
	}
}

func TestSchemesCommand(t *testing.T) {
	code, out, _ := runCLI("schemes")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, s := range pake.All() {
		if !strings.Contains(out, s.Info().Suite) {
			t.Errorf("schemes output lacks %s", s.Info().Suite)
		}
	}
	code, out, _ = runCLI("schemes", "-json")
	if code != 0 || !strings.HasPrefix(strings.TrimSpace(out), "[") {
		t.Fatalf("schemes -json: exit %d, %q", code, out)
	}
}

func TestBadCommandLines(t *testing.T) {
	for _, args := range [][]string{
		{}, {"nonsense"}, {"vectors", "-nope"}, {"schemes", "extra"}, {"schemes", "-json=maybe"},
	} {
		code, _, errOut := runCLI(args...)
		if code != 2 || errOut == "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
	if code, out, _ := runCLI("help"); code != 0 || !strings.Contains(out, "usage") {
		t.Errorf("help: exit %d", code)
	}
}
