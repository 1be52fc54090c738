package report

import (
	"fmt"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/report/internal/numfmt"
)

// SourceChromium is the Source of a run of browser logins: the Chromium
// test of the sign-in page (clients/ts/test/browser.test.ts) writes one
// "full" sample per login whose Steps are its latency phases — Party
// "browser", "network", "web server" or "PAKE server", Name the round
// (the request's last path segment, "end" for the browser's work after the
// last answer) — the split of the Android PAKE study's Figure 11.
const SourceChromium = "chromium"

// PhaseParties are the phase kinds of a browser login, in display order.
var PhaseParties = []string{"browser", "network", "web server", "PAKE server"}

// phaseRow is one scheme's browser login: the total and each kind of
// phase summed over the login's rounds, as "median [Q1, Q3]".
type phaseRow struct {
	Scheme string
	N      int
	Total  string
	Parts  []string
	Rounds string // the median of each round's phases
}

// browserPhases summarises a chromium run per scheme; nil for other runs.
func browserPhases(r *bench.Results) []phaseRow {
	if r.Source != SourceChromium {
		return nil
	}
	var out []phaseRow
	for _, si := range r.Schemes {
		var total []float64
		parts := make([][]float64, len(PhaseParties))
		for _, s := range r.Samples {
			if s.Scheme != si.Name || s.Op != bench.OpFull {
				continue
			}
			total = append(total, float64(s.WallNs))
			for i, p := range PhaseParties {
				var sum float64
				for _, st := range s.Steps {
					if st.Party == p {
						sum += float64(st.Ns)
					}
				}
				parts[i] = append(parts[i], sum)
			}
		}
		if len(total) < 2 {
			continue
		}
		row := phaseRow{Scheme: si.Name, N: len(total), Total: medianIQR(total)}
		for _, xs := range parts {
			row.Parts = append(row.Parts, medianIQR(xs))
		}
		if st := steps(&bench.Results{Schemes: []bench.SchemeInfo{si}, Samples: r.Samples}); len(st) == 1 {
			row.Rounds = st[0].Steps
		}
		out = append(out, row)
	}
	return out
}

func medianIQR(xs []float64) string {
	s, err := stats.Summarize(xs)
	if err != nil {
		return "–"
	}
	return fmt.Sprintf("%s [%s, %s]", numfmt.Ns(s.Median), numfmt.Ns(s.Q1), numfmt.Ns(s.Q3))
}
