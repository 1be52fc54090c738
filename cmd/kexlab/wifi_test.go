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

// TestWifiOutOfRange: numbers and rates outside the model's bounds, or
// without a unit, are usage errors with one line on stderr, before any
// handshake is run; none gives a negative or infinite time.
func TestWifiOutOfRange(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"handshake", "-overhead", "9000000000000000000"}, "frame overhead 9000000000000000000 octets out of range (0 to 65535 octets per frame)"},
		{[]string{"handshake", "-overhead", "65536"}, "out of range (0 to 65535 octets per frame)"},
		{[]string{"handshake", "-overhead", "-1"}, "out of range (0 to 65535 octets per frame)"},
		{[]string{"handshake", "-perframe", "2562047h"}, "per-frame time 2562047h0m0s out of range (0 to 1h0m0s)"},
		{[]string{"handshake", "-perframe", "1h0m0.000000001s"}, "out of range (0 to 1h0m0s)"},
		{[]string{"handshake", "-perframe", "-1ns"}, "out of range (0 to 1h0m0s)"},
		{[]string{"handshake", "-link", "1e-300bps"}, "-link: lwc: invalid input: rate 1e-300bps out of range (1 bps to 1 Tbps)"},
		{[]string{"handshake", "-link", "1e300Gbps"}, "rate 1e300Gbps out of range (1 bps to 1 Tbps)"},
		{[]string{"handshake", "-link", "0bps"}, "rate 0bps out of range"},
		{[]string{"handshake", "-link", "54"}, "-link: lwc: invalid input: rate 54 has no unit (bps, kbps, Mbps, Gbps)"},
		{[]string{"handshake", "-link", "54MBps"}, `unknown unit "MBps"`},
		{[]string{"handshake", "-link", "NaN"}, "not a positive decimal number"},
		{[]string{"handshake", "-link", "Inf"}, "not a positive decimal number"},
		{[]string{"handshake", "-link", "+Inf"}, "not a positive decimal number"},
		{[]string{"handshake", "-link", "+Infbps"}, "not a positive decimal number"},
		{[]string{"handshake", "-n", "0"}, "-n 0 out of range (2 to 1000000)"},
		{[]string{"handshake", "-n", "1000001"}, "-n 1000001 out of range (2 to 1000000)"},
		{[]string{"table", "-links", "1Mbps,54"}, "-links: lwc: invalid input: rate 54 has no unit"},
		{[]string{"table", "-links", "1Mbps,1e300Gbps"}, "rate 1e300Gbps out of range"},
		{[]string{"table", "-links", "1Mbps,,54Mbps"}, `rate "" is not a positive decimal number`},
		{[]string{"table", "-links", "NaNbps"}, "not a positive decimal number"},
		{[]string{"table", "-overhead", "9000000000000000000"}, "frame overhead 9000000000000000000 octets out of range"},
		{[]string{"table", "-perframe", "2562047h"}, "per-frame time 2562047h0m0s out of range"},
		{[]string{"shape", "-n", "-1"}, "-n -1 out of range (1 to 1000000000)"},
		{[]string{"shape", "-n", "1000000001"}, "-n 1000000001 out of range (1 to 1000000000)"},
	} {
		args := append([]string{"wifi"}, c.args...)
		code, out, errOut := runCLI(args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "kexlab wifi: usage: ") ||
			!strings.Contains(errOut, c.want) || strings.Contains(errOut, "goroutine") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, one line on stderr with %q", args, code, out, errOut, c.want)
		}
	}
}
