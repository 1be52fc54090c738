package bench

import (
	"os"
	"runtime"
	"strings"
	"time"
)

// Machine describes where a run was taken.
type Machine struct {
	Host       string   `json:"host,omitempty"`
	CPUModel   string   `json:"cpu_model,omitempty"`
	CPUFlags   []string `json:"cpu_flags,omitempty"`
	Cores      int      `json:"cores"`
	GOMAXPROCS int      `json:"gomaxprocs"`
	GoVersion  string   `json:"go_version,omitempty"`
	OS         string   `json:"os,omitempty"`
	Arch       string   `json:"arch,omitempty"`
	Kernel     string   `json:"kernel,omitempty"`
	Governor   string   `json:"governor,omitempty"` // cpufreq scaling governor of cpu0
	LoadAvg    string   `json:"loadavg,omitempty"`  // /proc/loadavg at the start
	Time       string   `json:"time"`               // RFC 3339, UTC
}

// DescribeMachine collects what it can read about this machine; fields it
// cannot read stay empty.
func DescribeMachine() Machine {
	m := Machine{
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion:  runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
		Time:       time.Now().UTC().Format(time.RFC3339),
	}
	m.Host, _ = os.Hostname()
	m.Kernel = readTrim("/proc/sys/kernel/osrelease")
	m.Governor = readTrim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	m.LoadAvg = readTrim("/proc/loadavg")
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel, m.CPUFlags = parseCPUInfo(string(b))
	}
	return m
}

// parseCPUInfo returns the model name and flags of the first processor in
// a /proc/cpuinfo text.
func parseCPUInfo(s string) (model string, flags []string) {
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case k == "model name" && model == "":
			model = v
		case (k == "flags" || k == "Features") && flags == nil:
			flags = strings.Fields(v)
		}
	}
	return model, flags
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
