package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

// TestBrowserPhases: a chromium run's logins get the phase table, each
// kind of phase summed over the rounds; the medians are of known values.
func TestBrowserPhases(t *testing.T) {
	r := &bench.Results{Format: bench.Format, Label: "headless Chromium", Source: SourceChromium,
		Schemes: []bench.SchemeInfo{{Name: "opaque", Augmented: true}}}
	for i := int64(1); i <= 5; i++ { // browser 10+20·i ms, network 2 ms, web 1 ms, PAKE 3 ms
		r.Samples = append(r.Samples, bench.Sample{Scheme: "opaque", Op: bench.OpFull, Iter: int(i), WallNs: (16 + 20*i) * 1e6,
			Steps: []bench.Step{
				{Party: "browser", Name: "start", Ns: 10e6}, {Party: "network", Name: "start", Ns: 1e6},
				{Party: "web server", Name: "start", Ns: 1e6}, {Party: "PAKE server", Name: "start", Ns: 3e6},
				{Party: "browser", Name: "finish", Ns: 20 * i * 1e6}, {Party: "network", Name: "finish", Ns: 1e6},
			}})
	}
	rows := browserPhases(r)
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	want := []string{"70 ms [50 ms, 90 ms]", "2 ms [2 ms, 2 ms]", "1 ms [1 ms, 1 ms]", "3 ms [3 ms, 3 ms]"}
	for i, w := range want {
		if rows[0].Parts[i] != w {
			t.Errorf("%s: %q, want %q", PhaseParties[i], rows[0].Parts[i], w)
		}
	}
	if rows[0].N != 5 || rows[0].Total != "76 ms [56 ms, 96 ms]" {
		t.Errorf("n %d, total %q", rows[0].N, rows[0].Total)
	}
	var b bytes.Buffer
	if err := Write(&b, []*bench.Results{r}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "Where a browser login's time goes") || !strings.Contains(s, "70 ms [50 ms, 90 ms]") {
		t.Error("the report has no phase table")
	}
	if browserPhases(fakeRun("compare", false)) != nil {
		t.Error("a compare run got a phase table")
	}
}
