package report

import (
	"fmt"

	"github.com/kexlab/kexlab/bench"
)

// soakView is one `kexlab wg bench -soak` run in the report.
type soakView struct {
	Label   string
	Machine bench.Machine
	Shape   string
	Rows    []soakRow
}

// soakRow is one combination: each rate is "window (median [min–max])"
// per hour, pooled over the two sides.
type soakRow struct {
	Mode, Source, SourceName                 string
	Handshakes, Warmup, N                    string
	DaemonCPU, DaemonWake, DaemonRSS         string
	DeviceCPU, DeviceWake, IdleCPU, IdleWake string
	AddedCPU, AddedWake                      string
}

func soakViews(soaks []*bench.SoakResult) []soakView {
	var out []soakView
	for _, r := range soaks {
		v := soakView{Label: r.Label, Machine: r.Machine,
			Shape: fmt.Sprintf("a window of %s per combination after its warm-up, sampled every %s; keepalive %s on one side; %s",
				soakSecs(r.Seconds), soakSecs(r.SampleSeconds), soakSecs(r.KeepaliveSeconds), r.Order)}
		for _, c := range r.Combos {
			row := soakRow{Mode: c.Mode, Source: c.Source, SourceName: c.SourceName,
				Handshakes: fmt.Sprintf("%d (warm-up %d)", c.Handshakes, c.WarmupHandshakes),
				Warmup:     soakSecs(c.WarmupSeconds), N: "–",
				DaemonCPU: "–", DaemonWake: "–", DaemonRSS: "–", DeviceCPU: "–", DeviceWake: "–", IdleCPU: "–", IdleWake: "–", AddedCPU: "–", AddedWake: "–"}
			if d, ok := c.Summarize(bench.SoakDaemon); ok {
				row.N = fmt.Sprintf("%d × %d", d.Processes, d.CPU.N/d.Processes)
				row.DaemonCPU, row.DaemonWake, row.DaemonRSS = d.CPU.String(), d.Wakeups.String(), fmt.Sprintf("%.1f MB", d.RSSBytes/1e6)
			}
			if dev, ok := c.Summarize(bench.SoakDevice); ok {
				row.DeviceCPU, row.DeviceWake = dev.CPU.String(), dev.Wakeups.String()
			}
			if idle, ok := c.Summarize(bench.SoakIdle); ok {
				row.IdleCPU, row.IdleWake = idle.CPU.String(), idle.Wakeups.String()
			}
			if cpu, wake, ok := c.Added(); ok {
				row.AddedCPU, row.AddedWake = bench.SoakNum(cpu), bench.SoakNum(wake)
			}
			v.Rows = append(v.Rows, row)
		}
		out = append(out, v)
	}
	return out
}

func soakSecs(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%.3g h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.3g min", s/60)
	}
	return fmt.Sprintf("%.3g s", s)
}
