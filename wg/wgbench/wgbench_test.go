package wgbench

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kexlab/kexlab/bench"
	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
)

func TestWGBenchRows(t *testing.T) {
	const n = 6
	second := keysource.NewFile([32]byte{7}, "second")
	defer second.Close()
	r, err := Run(Config{N: n, Seed: 1, Label: "test", Sources: []keysource.Source{second}})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range []string{"file", "second"} {
		want = append(want, "derive "+s, "update timestamp "+s, "update hash-ratchet "+s,
			"update hardware-ratchet "+s, "update fresh "+s)
	}
	var got []string
	for _, si := range r.Schemes {
		got = append(got, si.Name)
		if si.Suite != "wg" || si.N != n {
			t.Errorf("%s: suite %q, N %d", si.Name, si.Suite, si.N)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if r.Format != bench.Format || r.Source != "kexlab wg bench" || r.Label != "test" || r.Energy.Measured || r.Energy.Reason == "" {
		t.Errorf("header: %q %q %q %+v", r.Format, r.Source, r.Label, r.Energy)
	}
	if len(r.Samples) != n*len(want) {
		t.Fatalf("%d samples, want %d", len(r.Samples), n*len(want))
	}
	iters := map[string][]int{}
	for i, s := range r.Samples {
		if s.Seq != i || s.Op != bench.OpFull || s.WallNs <= 0 {
			t.Errorf("sample %d: %+v", i, s)
		}
		iters[s.Scheme] = append(iters[s.Scheme], s.Iter)
		var steps []string
		for _, st := range s.Steps {
			steps = append(steps, st.Party+" "+st.Name)
		}
		var wantSteps []string
		switch {
		case strings.HasPrefix(s.Scheme, "update fresh"):
			wantSteps = []string{"initiator offer", "responder answer", "initiator finish",
				"initiator psk", "responder psk", "initiator set", "responder set"}
		case strings.HasPrefix(s.Scheme, "update"):
			wantSteps = []string{"rotator psk", "rotator set"}
		}
		if !slices.Equal(steps, wantSteps) {
			t.Errorf("sample %d (%s): steps %q, want %q", i, s.Scheme, steps, wantSteps)
		}
	}
	for name, it := range iters {
		if !slices.Equal(it, []int{0, 1, 2, 3, 4, 5}) {
			t.Errorf("%s: iters %v", name, it)
		}
	}
	// Interleaved: the first n samples are not all of one row.
	first := map[string]bool{}
	for _, s := range r.Samples[:n] {
		first[s.Scheme] = true
	}
	if len(first) == 1 {
		t.Errorf("samples not interleaved: first %d all of %v", n, first)
	}
	rows, err := Summarize(r)
	if err != nil || len(rows) != len(want) {
		t.Fatalf("Summarize: %v, %d rows", err, len(rows))
	}
	for _, row := range rows {
		if row.Wall.N != n || row.Wall.Median <= 0 || row.Wall.Min > row.Wall.Median {
			t.Errorf("%s: %+v", row.Name, row.Wall)
		}
	}
	// What export writes, ReadJSON (and so kexlab report) accepts.
	var buf bytes.Buffer
	if err := export.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	back, err := export.ReadJSON(&buf)
	if err != nil || len(back.Samples) != len(r.Samples) {
		t.Fatalf("ReadJSON: %v", err)
	}
}

func TestWGBenchSameOrderForSameSeed(t *testing.T) {
	cfg := Config{N: 3, Seed: 42, Modes: []wg.Mode{wg.HashRatchet}}
	order := func() []string {
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, x := range r.Samples {
			s = append(s, x.Scheme)
		}
		return s
	}
	if a, b := order(), order(); !slices.Equal(a, b) {
		t.Errorf("seed 42 gave %q then %q", a, b)
	}
}

// TestWGBenchUpdateAppliesPSK checks that an update row leaves the PSK of the
// chain's next position on the device (read back through the UAPI), and
// that fresh mode leaves the same PSK on both devices.
func TestWGBenchUpdateAppliesPSK(t *testing.T) {
	tn, err := newTunnel()
	if err != nil {
		t.Fatal(err)
	}
	defer tn.close()
	src := keysource.NewFile([32]byte{1, 2, 3}, "k")
	r, err := updateRow(src, wg.HardwareRatchet, tn)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := r.run(&clock{}); err != nil {
			t.Fatal(err)
		}
	}
	st := wg.NewState(wg.HardwareRatchet)
	p, err := wg.StartChain(src, tn.pair, &st, 0)
	for i := 0; i < 3 && err == nil; i++ {
		p, err = wg.Step(src, tn.pair, &st, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	peer, err := tn.a.Peer(tn.b.Pub)
	if err != nil {
		t.Fatal(err)
	}
	if peer.PSKHash != p.Hash() {
		t.Error("device A does not hold the hardware ratchet's PSK_4")
	}

	f, err := updateRow(src, wg.Fresh, tn)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.run(&clock{}); err != nil {
		t.Fatal(err)
	}
	pa, errA := tn.a.Peer(tn.b.Pub)
	pb, errB := tn.b.Peer(tn.a.Pub)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if pa.PSKHash != pb.PSKHash || pa.PSKHash == peer.PSKHash {
		t.Error("fresh update: the devices do not hold the same new PSK")
	}
}

var errBroken = errors.New("broken token")

// failing is a test double of a source that fails from its after-th
// Derive on, or panics instead when panics is set.
type failing struct {
	calls, after int64
	panics       bool
}

func (f *failing) Name() string { return "broken" }
func (f *failing) Close() error { return nil }
func (f *failing) Derive([]byte) ([32]byte, error) {
	if atomic.AddInt64(&f.calls, 1) <= f.after {
		return [32]byte{1}, nil
	}
	if f.panics {
		panic("device gone")
	}
	return [32]byte{}, errBroken
}

func TestWGBenchFailingSource(t *testing.T) {
	for _, f := range []*failing{
		{after: 0},  // fails while the chains start
		{after: 40}, // fails while sampling
		{after: 0, panics: true},
		{after: 40, panics: true},
	} {
		_, err := Run(Config{N: 20, Sources: []keysource.Source{f}})
		if err == nil || !strings.Contains(err.Error(), "broken") {
			t.Errorf("after %d, panics %v: error %v", f.after, f.panics, err)
		}
		if !f.panics && !errors.Is(err, errBroken) {
			t.Errorf("after %d: %v does not wrap the source's error", f.after, err)
		}
	}
}

func TestWGBenchConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{N: 1},
		{N: 2, Sources: []keysource.Source{keysource.NewFile([32]byte{}, FileSourceName)}},
		{N: 2, Modes: []wg.Mode{wg.Mode(9)}},
		{N: 2, Sources: []keysource.Source{nil}},
	} {
		if _, err := Run(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", cfg, err)
		}
	}
}
