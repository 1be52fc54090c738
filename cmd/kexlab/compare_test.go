package main

import (
	"github.com/kexlab/kexlab/bench"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench/export"
)

// TestCompareAndReport runs a tiny comparison of the cheapest scheme, then
// re-renders the report from its results.json merged with itself and with
// a JMH import.
func TestCompareAndReport(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI("compare", "-q", "-schemes", "cpace", "-n", "4", "-min-n", "3", "-warmup", "1",
		"-time", "0", "-seed", "7", "-label", "test box", "-out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "SCHEME") || !strings.Contains(out, "cpace") || !strings.Contains(out, "energy: ") {
		t.Errorf("table missing:\n%s", out)
	}
	for _, f := range []string{"results.json", "results.csv", "bench.txt", "report.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	res, err := export.LoadJSON(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, s := range res.Samples {
		ops[s.Op]++
	}
	// CPace has no password stretching: a full exchange and its floor.
	if len(res.Samples) != 8 || ops[bench.OpFull] != 4 || ops[bench.OpFloor] != 4 || res.Label != "test box" || res.Settings.Seed != 7 {
		t.Errorf("results: samples per op %v, label %q, seed %d", ops, res.Label, res.Settings.Seed)
	}
	if !strings.Contains(out, "primitive limit") {
		t.Errorf("no primitive limit table:\n%s", out)
	}
	if si, _ := res.Scheme("cpace"); si.WireCheck != "ok" {
		t.Errorf("cpace wire check %q", si.WireCheck)
	}

	html := filepath.Join(dir, "merged.html")
	jmh := filepath.Join("..", "..", "bench", "importer", "testdata", "jmh.json")
	code, out, errOut = runCLI("report", "-o", html, "-labels", "a,b,jvm",
		filepath.Join(dir, "results.json"), filepath.Join(dir, "results.json"), jmh)
	if code != 0 {
		t.Fatalf("report exit %d\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Run: a", "Run: b", "Run: jvm", "cpace — a", "cpace — b"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("merged report lacks %q", want)
		}
	}
}

func TestCompareUsage(t *testing.T) {
	if code, _, _ := runCLI("compare", "-schemes", "no-such-scheme"); code != 2 {
		t.Errorf("unknown scheme: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("compare", "-n", "1"); code != 2 {
		t.Errorf("-n 1: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("report"); code != 2 {
		t.Errorf("report without files: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("report", "-labels", "x,y", "a.json"); code != 2 {
		t.Errorf("labels count mismatch: exit %d, want 2", code)
	}
}
