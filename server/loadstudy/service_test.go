package loadstudy

import (
	"testing"
	"time"
)

func TestStatCPU(t *testing.T) {
	// proc(5): utime and stime are fields 14 and 15, in 1/100 s; the
	// command name may hold spaces and parentheses.
	line := "4242 (kexlab (x) y) S 1 4242 4242 0 -1 4194560 1500 0 0 0 123 45 0 0 20 0 9 0 100 0 0"
	if got := statCPU(line); got != 1680*time.Millisecond {
		t.Errorf("statCPU = %v, want 1.68s", got)
	}
	for _, bad := range []string{"", "4242 (kexlab S 1", "4242 (k) S 1 2 3", "4242 (k) S 1 2 3 4 5 6 7 8 9 10 x 45 0"} {
		if got := statCPU(bad); got != -1 {
			t.Errorf("statCPU(%q) = %v, want -1", bad, got)
		}
	}
}

func TestCheck(t *testing.T) {
	good := Quick()
	good.Exe = "kexlab"
	if err := good.Check(); err != nil {
		t.Fatalf("Quick: %v", err)
	}
	for name, tweak := range map[string]func(*Config){
		"no exe":         func(c *Config) { c.Exe = "" },
		"unknown scheme": func(c *Config) { c.Schemes = []string{"srp-999"} },
		"zero conns":     func(c *Config) { c.Conns = []int{0} },
		"huge batch":     func(c *Config) { c.Batches = []int{5000} },
		"zero fraction":  func(c *Config) { c.Fractions = []float64{0} },
		"no point":       func(c *Config) { c.Point = 0 },
		"one account":    func(c *Config) { c.Accounts = 0 },
		"calibrate 1":    func(c *Config) { c.CalibrateMax = 1 },
	} {
		c := good
		tweak(&c)
		if err := c.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
