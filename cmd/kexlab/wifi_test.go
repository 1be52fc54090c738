package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWifiHandshakeCommand(t *testing.T) {
	dir := t.TempDir()
	js, res := filepath.Join(dir, "wifi.json"), filepath.Join(dir, "wifi-results.json")
	code, out, errOut := runCLI("wifi", "handshake", "-kdf", "ascon", "-link", "16.82kbps", "-n", "3", "-json", js, "-results", res)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"PMK: SAE", "LWC-ascon/CCMP-128", "16.82kbps", "T_auth", "no retransmission", "320-bit"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var o struct {
		Rows []struct {
			Key    string
			Frames [4]int
			Tx     int64
			Auth   int64
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &o); err != nil || len(o.Rows) != 1 || o.Rows[0].Key != "ascon" || o.Rows[0].Frames[0] != 99 ||
		o.Rows[0].Auth <= o.Rows[0].Tx {
		t.Fatalf("JSON %v: %s", err, b)
	}
	html := filepath.Join(dir, "r.html")
	if code, out, errOut := runCLI("report", "-o", html, res); code != 0 {
		t.Fatalf("report of wifi results: exit %d\n%s%s", code, out, errOut)
	}
}

func TestWifiTableAndErrors(t *testing.T) {
	code, out, errOut := runCLI("wifi", "table", "-n", "2", "-links", "1Mbps,54Mbps", "-psk", "correct horse battery")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, k := range []string{"standard", "sae", "ace", "spix", "wage", "ascon"} {
		if !strings.Contains(out, " "+k+" ") {
			t.Errorf("table lacks %s:\n%s", k, out)
		}
	}
	for _, args := range [][]string{
		{"wifi"}, {"wifi", "nope"}, {"wifi", "handshake", "-kdf", "des"}, {"wifi", "handshake", "-link", "fast"},
		{"wifi", "handshake", "-n", "1"}, {"wifi", "handshake", "-psk", "short"}, {"wifi", "shape", "-op", "prf"},
	} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, errOut := runCLI("wifi", "shape", "-kdf", "spix", "-op", "mic4", "-n", "10"); code != 0 {
		t.Errorf("shape: exit %d %s", code, errOut)
	}
}
