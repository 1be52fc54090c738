package bench

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/pake"
)

// fakeScheme is a two-message "exchange" whose parties echo fixed-size
// messages; augmented selects whether it has a registration.
type fakeScheme struct {
	name      string
	augmented bool
	declared  int // declared size of the server's message
}

func (f fakeScheme) Info() pake.Info {
	return pake.Info{Name: f.name, Augmented: f.augmented, Messages: []pake.Message{
		{Name: "hello", From: pake.Client, Size: 3, StudySize: 2},
		{Name: "reply", From: pake.Server, Size: f.declared, StudySize: 4},
	}}
}

func (f fakeScheme) Register(io.Reader, pake.Credentials) ([]byte, error) {
	if f.augmented {
		return []byte("record"), nil
	}
	return nil, nil
}

func (f fakeScheme) NewClient(io.Reader, pake.Credentials) (pake.Party, error) {
	return &fakeParty{client: true}, nil
}

func (f fakeScheme) NewServer(io.Reader, pake.Credentials, []byte) (pake.Party, error) {
	return &fakeParty{}, nil
}

func (f fakeScheme) KnownAnswerTests() []pake.KnownAnswer { return nil }

type fakeParty struct {
	client bool
	step   int
}

func (p *fakeParty) Next(in []byte) ([]byte, error) {
	p.step++
	switch {
	case p.client && p.step == 1:
		return []byte("abc"), nil
	case !p.client && p.step == 1:
		return []byte("12345"), nil
	}
	return nil, nil
}

func (p *fakeParty) Done() bool                  { return p.step >= 1 }
func (p *fakeParty) SessionKey() ([]byte, error) { return []byte("k"), nil }

func TestCompareFake(t *testing.T) {
	var calls int
	res, err := Compare(Config{
		Schemes: []pake.Scheme{fakeScheme{"bal", false, 5}, fakeScheme{"aug", true, 6}},
		N:       7, MinN: 3, Warmup: 2, Seed: 1, EnergyReason: "test",
		Progress: func(done, total int, _ time.Duration) { calls++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 14 {
		t.Errorf("progress called %d times, want 14", calls)
	}
	count := map[string]int{}
	for _, s := range res.Samples {
		count[s.Scheme+"/"+s.Op]++
		if s.Op == OpFull {
			if s.WireBytes != 8 {
				t.Errorf("wire bytes %d, want 8", s.WireBytes)
			}
			// new, new, client hello, server reply, client finish.
			var names []string
			for _, st := range s.Steps {
				names = append(names, st.Party+":"+st.Name)
			}
			if got := strings.Join(names, " "); got != "client:new server:new client:hello server:reply client:finish" {
				t.Errorf("steps %q", got)
			}
		}
	}
	if count["bal/full"] != 7 || count["aug/full"] != 7 || count["aug/register"] != 7 || count["bal/register"] != 0 {
		t.Errorf("sample counts %v", count)
	}
	bal, _ := res.Scheme("bal")
	aug, _ := res.Scheme("aug")
	if bal.WireCheck != "ok" || bal.Size != 8 || bal.StudySize != 6 {
		t.Errorf("bal info %+v", bal)
	}
	if !strings.HasPrefix(aug.WireCheck, "mismatch") || aug.Messages[1].Actual != 5 {
		t.Errorf("aug wire check %q, %+v", aug.WireCheck, aug.Messages)
	}
	if res.Energy.Measured || res.Energy.Reason != "test" {
		t.Errorf("energy %+v", res.Energy)
	}
	// The order is interleaved: not all of one scheme first.
	first := res.Samples[0].Scheme
	mixed := false
	for _, s := range res.Samples[:len(res.Samples)/2] {
		mixed = mixed || s.Scheme != first
	}
	if !mixed {
		t.Error("samples not interleaved")
	}
}

func TestCompareSeedFixesOrder(t *testing.T) {
	order := func(seed uint64) string {
		res, err := Compare(Config{Schemes: []pake.Scheme{fakeScheme{"a", false, 5}, fakeScheme{"b", false, 5}},
			N: 10, MinN: 10, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, s := range res.Samples {
			b.WriteString(s.Scheme)
		}
		return b.String()
	}
	if order(1) != order(1) {
		t.Error("same seed, different order")
	}
	if order(1) == order(2) {
		t.Error("different seeds, same order")
	}
}

func TestPlan(t *testing.T) {
	ms := time.Millisecond
	// No budget: everyone gets maxN.
	if got := Plan([]time.Duration{ms, 100 * ms}, 50, 10, 0); got[0] != 50 || got[1] != 50 {
		t.Errorf("no budget: %v", got)
	}
	// Budget 2 s: cheap scheme at maxN (50 ms), the expensive one gets the
	// rest, 1950 ms / 100 ms = 19.
	got := Plan([]time.Duration{ms, 100 * ms}, 50, 10, 2*time.Second)
	if got[0] != 50 || got[1] != 19 {
		t.Errorf("2s budget: %v", got)
	}
	// Budget too small: the floor wins.
	got = Plan([]time.Duration{ms, 100 * ms}, 50, 10, 10*ms)
	if got[0] != 10 || got[1] != 10 {
		t.Errorf("tiny budget: %v", got)
	}
}

func TestParseCPUInfo(t *testing.T) {
	model, flags := parseCPUInfo("processor\t: 0\nmodel name\t: Fake CPU @ 2.0GHz\nflags\t\t: fpu aes avx2\n\nprocessor\t: 1\nmodel name\t: Other\n")
	if model != "Fake CPU @ 2.0GHz" || strings.Join(flags, ",") != "fpu,aes,avx2" {
		t.Errorf("got %q %q", model, flags)
	}
}

// slowScheme is fakeScheme with a client that burns time on its first step.
type slowScheme struct{ fakeScheme }

func (s slowScheme) NewClient(r io.Reader, c pake.Credentials) (pake.Party, error) {
	time.Sleep(2 * time.Millisecond)
	return s.fakeScheme.NewClient(r, c)
}

// TestCompareBudgetCut checks that a run past its budget stops at the
// floor. (It sleeps to make samples cost something; it asserts counts, not
// durations.)
func TestCompareBudgetCut(t *testing.T) {
	res, err := Compare(Config{Schemes: []pake.Scheme{slowScheme{fakeScheme{"s", false, 5}}},
		N: 1000, MinN: 5, Warmup: 1, Budget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	si, _ := res.Scheme("s")
	if si.N != 5 || len(res.Samples) != 5 {
		t.Errorf("took %d samples (N %d, planned %d), want the floor 5", len(res.Samples), si.N, si.Planned)
	}
}

// brokenScheme fails its exchange: by error or by panic.
type brokenScheme struct {
	fakeScheme
	panics bool
}

func (s brokenScheme) NewServer(io.Reader, pake.Credentials, []byte) (pake.Party, error) {
	if s.panics {
		panic("boom")
	}
	return nil, pake.ErrInvalidParameter
}

func TestCompareSkipsBrokenSchemes(t *testing.T) {
	res, err := Compare(Config{Schemes: []pake.Scheme{
		fakeScheme{"ok", false, 5},
		brokenScheme{fakeScheme{"err", false, 5}, false},
		brokenScheme{fakeScheme{"panic", false, 5}, true},
	}, N: 3, MinN: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Samples {
		if s.Scheme != "ok" {
			t.Fatalf("sample of broken scheme %q", s.Scheme)
		}
	}
	e, _ := res.Scheme("err")
	p, _ := res.Scheme("panic")
	if !strings.Contains(e.Error, "invalid parameter") || !strings.Contains(p.Error, "panicked: boom") {
		t.Errorf("errors %q, %q", e.Error, p.Error)
	}
	if _, err := Compare(Config{Schemes: []pake.Scheme{brokenScheme{fakeScheme{"err", false, 5}, false}}}); err == nil {
		t.Error("all schemes broken: no error")
	}
}

// preparedScheme is fakeScheme with pake.Preparer; it counts how often the
// (expensive, in real schemes) preparation runs.
type preparedScheme struct {
	fakeScheme
	prepares *int
}

func (p preparedScheme) PrepareClient(c pake.Credentials) (pake.PartyFactory, error) {
	*p.prepares++
	return func(r io.Reader) (pake.Party, error) { return p.NewClient(r, c) }, nil
}

func (p preparedScheme) PrepareServer(c pake.Credentials, rec []byte) (pake.PartyFactory, error) {
	*p.prepares++
	if p.augmented && string(rec) != "record" {
		return nil, pake.ErrInvalidParameter
	}
	return func(r io.Reader) (pake.Party, error) { return p.NewServer(r, c, rec) }, nil
}

func TestCompareOnlineSamples(t *testing.T) {
	var prepares int
	res, err := Compare(Config{
		Schemes: []pake.Scheme{preparedScheme{fakeScheme{"p", true, 5}, &prepares}, fakeScheme{"plain", false, 5}},
		N:       6, MinN: 3, Warmup: 1, Seed: 2, EnergyReason: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, s := range res.Samples {
		count[s.Scheme+"/"+s.Op]++
		if s.Op == OpOnline && (s.WireBytes != 8 || len(s.Steps) != 5) {
			t.Errorf("online sample: %d wire bytes, %d steps", s.WireBytes, len(s.Steps))
		}
	}
	if count["p/online"] != 6 || count["p/full"] != 6 || count["plain/online"] != 0 {
		t.Errorf("sample counts %v", count)
	}
	if prepares != 2 {
		t.Errorf("prepared %d times, want once per side (2)", prepares)
	}
}

// flooredScheme is preparedScheme with pake.Floorer; it counts the calls
// of each part of its floor.
type flooredScheme struct {
	preparedScheme
	password       bool
	floors, online *int
	pw             *int
}

func (f flooredScheme) Floor(io.Reader) (*pake.Floor, error) {
	*f.floors++
	fl := &pake.Floor{Ops: []string{"1 × nothing"}, Online: func() error { *f.online++; return nil }}
	if f.password {
		fl.Password = func() error { *f.pw++; return nil }
	}
	return fl, nil
}

func TestCompareFloorSamples(t *testing.T) {
	var prepares, floors, online, pw int
	withPW := flooredScheme{preparedScheme{fakeScheme{"pw", true, 5}, &prepares}, true, &floors, &online, &pw}
	noPW := flooredScheme{preparedScheme{fakeScheme{"nopw", false, 5}, &prepares}, false, &floors, &online, &pw}
	res, err := Compare(Config{
		Schemes: []pake.Scheme{withPW, noPW, fakeScheme{"plain", false, 5}},
		N:       6, MinN: 3, Warmup: 2, Seed: 3, EnergyReason: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, s := range res.Samples {
		count[s.Scheme+"/"+s.Op]++
		if s.Op == OpFloor && s.Scheme == "pw" && (len(s.Steps) != 2 || s.Steps[0].Ns+s.Steps[1].Ns != s.WallNs) {
			t.Errorf("floor sample steps %+v, wall %d", s.Steps, s.WallNs)
		}
	}
	want := map[string]int{"pw/floor": 6, "pw/floor-online": 6, "nopw/floor": 6, "nopw/floor-online": 0, "plain/floor": 0}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%s: %d samples, want %d (all: %v)", k, count[k], n, count)
		}
	}
	if floors != 2 {
		t.Errorf("Floor called %d times, want once per scheme", floors)
	}
	// Two warm-up rounds and six samples per floored scheme.
	if online != 16 || pw != 8 {
		t.Errorf("Online ran %d times (want 16), Password %d (want 8)", online, pw)
	}
	if si, _ := res.Scheme("pw"); len(si.FloorOps) != 1 {
		t.Errorf("FloorOps %v", si.FloorOps)
	}
	if FloorOf(OpFull) != OpFloor || FloorOf(OpOnline) != OpFloorOnline || FloorOf(OpRegister) != "" {
		t.Error("FloorOf")
	}
}

// orderedScheme logs "x" when an exchange starts and "f" when its floor
// runs, to see the order Compare takes them in.
type orderedScheme struct {
	fakeScheme
	log *[]byte
}

func (o orderedScheme) NewClient(r io.Reader, c pake.Credentials) (pake.Party, error) {
	*o.log = append(*o.log, 'x')
	return o.fakeScheme.NewClient(r, c)
}

func (o orderedScheme) Floor(io.Reader) (*pake.Floor, error) {
	return &pake.Floor{Ops: []string{"1 × nothing"}, Online: func() error { *o.log = append(*o.log, 'f'); return nil }}, nil
}

// The floor runs after the exchange in one iteration and before it in the
// next, so the paired ratio carries no order effect.
func TestCompareAlternatesFloorOrder(t *testing.T) {
	var log []byte
	if _, err := Compare(Config{Schemes: []pake.Scheme{orderedScheme{fakeScheme{"o", false, 5}, &log}},
		N: 4, MinN: 4, Warmup: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	// Warm-up: xf fx; samples: xf fx xf fx.
	if got := string(log); got != "xffxxffxxffx" {
		t.Errorf("exchange (x) and floor (f) order %q, want xffxxffxxffx", got)
	}
}

// fakePeer is an independent implementation's scheme.
type fakePeer struct{ calls *int }

func (p fakePeer) Info() SchemeInfo {
	return SchemeInfo{Name: "peer fake", Peer: &PeerOf{Scheme: "a", Op: OpFull}}
}

func (p fakePeer) Sample() (Sample, error) {
	*p.calls++
	return Sample{WallNs: 1000, CPUNs: 900, WireBytes: 8}, nil
}

// Peers are sampled in the same seeded order as kexlab's schemes.
func TestComparePeersInterleaved(t *testing.T) {
	var calls int
	res, err := Compare(Config{Schemes: []pake.Scheme{fakeScheme{"a", false, 5}}, Peers: []Peer{fakePeer{&calls}},
		N: 10, MinN: 10, Warmup: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 12 {
		t.Errorf("peer sampled %d times, want 2 warm-up + 10", calls)
	}
	var order strings.Builder
	for _, s := range res.Samples {
		if s.Scheme == "peer fake" {
			order.WriteByte('p')
			if s.Op != OpFull || s.CPUNs != 900 || s.WireBytes != 8 {
				t.Errorf("peer sample %+v", s)
			}
		} else {
			order.WriteByte('k')
		}
	}
	o := order.String()
	if strings.Count(o, "p") != 10 || strings.HasPrefix(o, strings.Repeat("k", 10)) || strings.HasPrefix(o, strings.Repeat("p", 10)) {
		t.Errorf("order %s: not interleaved", o)
	}
	if si, ok := res.Scheme("peer fake"); !ok || si.Peer == nil || si.N != 10 || si.Size != 8 {
		t.Errorf("peer info %+v", si)
	}
}
