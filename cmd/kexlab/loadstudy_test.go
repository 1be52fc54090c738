//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench/export"
)

// TestLoadStudyQuick runs the service study's short version end to end:
// kexlab serve -study processes started by the study, the four
// experiments' data in the JSON, and the report's figures.
func TestLoadStudyQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("starts services and drives load for about 10 s")
	}
	studyEnv = []string{"KEXLAB_TEST_MAIN=1"}
	defer func() { studyEnv = nil }()
	dir := t.TempDir()
	out := filepath.Join(dir, "study.json")
	var so, se strings.Builder
	if rc := run([]string{"load-study", "-quick", "-o", out}, &so, &se); rc != 0 {
		t.Fatalf("load-study: exit %d\n%s\n%s", rc, so.String(), se.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	st, err := export.ReadServiceStudy(b)
	if err != nil || st == nil {
		t.Fatalf("the study's JSON: %v", err)
	}
	kinds := map[string]string{}
	for _, s := range st.Schemes {
		kinds[s.Scheme] = s.Kind
		if s.Peak <= 0 || s.LimitMs <= 0 || s.UnloadedP50 <= 0 || s.P99At70 <= 0 {
			t.Errorf("%s: peak %v, limit %v ms, unloaded p50 %v, p99 at 70%% %v: want all measured", s.Scheme, s.Peak, s.LimitMs, s.UnloadedP50, s.P99At70)
		}
		// Logins cannot outrun their primitives: the service's CPU time
		// per login includes the limit's work.
		if s.PeakPerCore > 1.25*s.LimitPerCore {
			t.Errorf("%s: %.1f logins per server CPU second beyond the primitive limit's %.1f", s.Scheme, s.PeakPerCore, s.LimitPerCore)
		}
	}
	if kinds["bcrypt-10"] != "hash" || kinds["opaque"] != "pake" || kinds["srp-1024"] != "pake" {
		t.Errorf("scheme kinds %v", kinds)
	}
	if len(st.Dispatch) != 2 {
		t.Fatalf("%d dispatcher fits, want 2 (the PAKE schemes)", len(st.Dispatch))
	}
	for _, d := range st.Dispatch {
		// A batch of n tasks on one worker takes about n times one task.
		if d.R2 < 0.9 || d.KMs <= 0 || len(d.Points) < 2 || d.Points[len(d.Points)-1].Ms < 1.5*d.Points[0].Ms {
			t.Errorf("%s: fit %+v: want a rising line", d.Scheme, d)
		}
	}
	for _, p := range st.Throughput {
		if p.Result.OK == 0 || len(p.Result.Errors) > 0 {
			t.Errorf("%s, %d connections: %d logins, errors %v", p.Scheme, p.Conns, p.Result.OK, p.Result.Errors)
		}
	}
	if len(st.Latency) != 3 {
		t.Errorf("%d open-loop points, want 3", len(st.Latency))
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Service study", "Throughput against connections", "p99 latency against offered load",
		"Delay of one dispatcher", "password-hash (orange)", "bcrypt-10", "srp-1024"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestLoadStudyFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-conns", "1,x"},
		{"-batches", "0"},
		{"-schemes", "srp-999"},
		{"-point", "-1s"},
	} {
		var so, se strings.Builder
		if rc := run(append([]string{"load-study"}, args...), &so, &se); rc != 2 || strings.Count(strings.TrimSpace(se.String()), "\n") > 0 {
			t.Errorf("load-study %v: exit %d, stderr %q: want 2 and one line", args, rc, se.String())
		}
	}
}
