package wgsoak

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/daemon"
)

func TestCheck(t *testing.T) {
	file := []Source{{Kind: "file", KeyFile: "/k"}}
	c := Config{Duration: time.Minute, Sources: file}
	if err := c.check(); err != nil || len(c.Modes) != 4 || c.Sample != DefaultSample || c.Keepalive != DefaultKeepalive {
		t.Fatalf("defaults: %v %+v", err, c)
	}
	for name, c := range map[string]Config{
		"short window":    {Duration: time.Millisecond, Sources: file},
		"sample > window": {Duration: time.Second, Sample: 2 * time.Second, Sources: file},
		"tiny sample":     {Duration: time.Second, Sample: time.Millisecond, Sources: file},
		"keepalive 1.5s":  {Duration: time.Minute, Keepalive: 1500 * time.Millisecond, Sources: file},
		"no source":       {Duration: time.Minute},
		"two keys":        {Duration: time.Minute, Sources: []Source{{Kind: "x", KeyFile: "/k", TPM: &TPM{}}}},
		"no kind":         {Duration: time.Minute, Sources: []Source{{KeyFile: "/k"}}},
		"tpm b alone":     {Duration: time.Minute, Sources: []Source{{Kind: "x", KeyFile: "/k", TPMB: &TPM{}}}},
		"bad mode":        {Duration: time.Minute, Sources: file, Modes: []wg.Mode{99}},
	} {
		if err := c.check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestIntervals(t *testing.T) {
	for _, c := range []struct {
		d, s time.Duration
		n    int
	}{{30 * time.Minute, time.Minute, 30}, {3 * time.Second, time.Second, 3}, {100 * time.Second, time.Minute, 2}, {time.Second, time.Minute, 1}, {time.Minute, 0, 1}} {
		if n := Intervals(c.d, c.s); n != c.n {
			t.Errorf("Intervals(%v, %v) = %d, want %d", c.d, c.s, n, c.n)
		}
	}
}

// TestTable: one line per combination with the pooled rates and what the
// rotator adds per host.
func TestTable(t *testing.T) {
	proc := func(role, side string, cpu, wake float64) bench.SoakProcess {
		return bench.SoakProcess{Role: role, Side: side, Samples: []bench.SoakSample{{}, {T: 60, CPUSeconds: cpu, Voluntary: wake}, {T: 120, CPUSeconds: 2 * cpu, Voluntary: 2 * wake}}}
	}
	r := &bench.SoakResult{Seconds: 120, SampleSeconds: 60, KeepaliveSeconds: 25, Combos: []bench.SoakCombo{
		{Mode: "fresh", Source: "file", Handshakes: 1, Processes: []bench.SoakProcess{proc("daemon", "a", 0.05, 600), proc("daemon", "b", 0.05, 600),
			proc("device", "a", 0.02, 300), proc("device", "b", 0.02, 300), proc("idle", "a", 0.01, 100), proc("idle", "b", 0.01, 100)}},
		{Mode: "timestamp", Source: "pkcs11"}}}
	var b strings.Builder
	if err := Table(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Daemon 0.05 s per minute = 3 s/h, 600 per minute = 36k/h; added
	// 3 + 1.2 − 0.6 = 3.6 s/h and 36k + 18k − 6k = 48k/h.
	for _, want := range []string{"window 2m0s per combination", "fresh file", "2×2", "3 (3 [3–3])", "36k (36k [36k–36k])", "3.6  ", "48k", "timestamp pkcs11"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// The configuration the soak writes is one the daemon accepts.
func TestDaemonConfigRoundTrip(t *testing.T) {
	pub := strings.Repeat("Q", 43) + "="
	c := daemon.Config{Interface: "kx0", Mode: "fresh", StateDir: "/s", FreshListen: "10.0.0.1:51821",
		Peers: []daemon.Peer{{PublicKey: pub, FreshPeer: "10.0.0.2:51821"}},
		TPM:   &TPM{Device: "/dev/tpmrm0", Blob: "/b"}}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := daemon.Parse(js); err != nil {
		t.Fatalf("daemon.Parse(%s): %v", js, err)
	}
}
