package wg

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/kexlab/kexlab/wg/keysource"
)

var (
	testKey  = [32]byte{0: 0x11, 31: 0x99}
	pubA     = [32]byte{0: 1}
	pubB     = [32]byte{0: 2}
	testPair = PairID(pubA, pubB)
)

// oracle computes HMAC-SHA256 independently of keysource.
func oracle(key []byte, parts ...[]byte) [32]byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return [32]byte(m.Sum(nil))
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func TestPairID(t *testing.T) {
	want := sha256.Sum256(append(append([]byte("kexlab-wg v1 pair"), pubA[:]...), pubB[:]...))
	if PairID(pubA, pubB) != want || PairID(pubB, pubA) != want {
		t.Fatal("PairID is not SHA-256(label || min || max) on both sides")
	}
}

func TestTimestamp(t *testing.T) {
	src := keysource.NewFile(testKey, "test")
	// 2024-03-10 12:59:59 UTC and the same instant in another zone.
	ts := time.Date(2024, 3, 10, 12, 59, 59, 0, time.UTC)
	hour := uint64(ts.Unix() / 3600)
	in := TimestampInput(testPair, hour)
	if want := append(append([]byte("kexlab-wg v1 timestamp"), testPair[:]...), u64(hour)...); !bytes.Equal(in, want) {
		t.Fatalf("input %x", in)
	}
	p1, err := TimestampPSK(src, testPair, ts)
	if err != nil {
		t.Fatal(err)
	}
	if [32]byte(p1) != oracle(testKey[:], in) {
		t.Fatal("timestamp PSK is not HMAC(K, input)")
	}
	p2, _ := TimestampPSK(src, testPair, ts.In(time.FixedZone("UTC+5:30", 5*3600+1800)).Add(-59*time.Minute))
	if p1 != p2 {
		t.Fatal("PSK depends on the time zone or changes within the hour")
	}
	p3, _ := TimestampPSK(src, testPair, ts.Add(time.Second))
	if p1 == p3 {
		t.Fatal("PSK did not change at the hour")
	}
	other := PairID(pubA, [32]byte{3})
	if p4, _ := TimestampPSK(src, other, ts); p4 == p1 {
		t.Fatal("two pairs share a PSK")
	}
	if _, err := TimestampPSK(src, testPair, time.Unix(-1, 0)); err == nil {
		t.Fatal("time before 1970 accepted")
	}
}

func TestHashRatchet(t *testing.T) {
	src := keysource.NewFile(testKey, "test")
	st := NewState(HashRatchet)
	p0, err := StartChain(src, testPair, &st, 7)
	if err != nil {
		t.Fatal(err)
	}
	seed := append(append([]byte("kexlab-wg v1 hash ratchet seed"), testPair[:]...), u64(7)...)
	if [32]byte(p0) != oracle(testKey[:], seed) || st.Index != 0 || st.Epoch != 7 || st.LastHash != p0.Hash() {
		t.Fatalf("PSK_0 or state wrong: %+v", st)
	}
	cur := p0
	for i := uint64(1); i <= 5; i++ {
		next, err := HashStep(&cur, &st)
		if err != nil {
			t.Fatal(err)
		}
		want := oracle(cur[:], []byte("kexlab-wg v1 hash ratchet"), u64(7), u64(i))
		if [32]byte(next) != want || st.Index != i {
			t.Fatalf("step %d", i)
		}
		cur = next
	}
	// A restarted rotator recomputes the same PSK from the state alone.
	b, _ := st.MarshalJSON()
	st2, err := ParseState(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ResumeHashRatchet(src, testPair, &st2)
	if err != nil || got != cur {
		t.Fatalf("resume: %v", err)
	}
	// Another key, or a PSK that is not the state's, is a desync.
	if _, err := ResumeHashRatchet(keysource.NewFile([32]byte{1}, "x"), testPair, &st2); !errors.Is(err, ErrDesync) {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := HashStep(&p0, &st); !errors.Is(err, ErrDesync) {
		t.Fatalf("stale PSK: %v", err)
	}
}

func TestHardwareRatchetAndFresh(t *testing.T) {
	src := keysource.NewFile(testKey, "test")
	for _, mode := range []Mode{HardwareRatchet, Fresh} {
		a, b := NewState(mode), NewState(mode)
		pa, err := StartChain(src, testPair, &a, 3)
		if err != nil {
			t.Fatal(err)
		}
		first := oracle(testKey[:], []byte("kexlab-wg v1 hardware ratchet"), testPair[:], u64(3), u64(1), make([]byte, 32))
		if [32]byte(pa) != first || a.Index != 1 {
			t.Fatalf("%v: first PSK", mode)
		}
		pb, _ := StartChain(src, testPair, &b, 3)
		for i := uint64(2); i <= 4; i++ {
			prev := a.LastHash
			var fresh *[32]byte
			var want [32]byte
			if mode == Fresh {
				fresh = &[32]byte{byte(i), 0xfe}
				want = oracle(testKey[:], []byte("kexlab-wg v1 fresh"), testPair[:], u64(3), u64(i), prev[:], fresh[:])
			} else {
				want = oracle(testKey[:], []byte("kexlab-wg v1 hardware ratchet"), testPair[:], u64(3), u64(i), prev[:])
			}
			if pa, err = Step(src, testPair, &a, fresh); err != nil {
				t.Fatal(err)
			}
			if pb, err = Step(src, testPair, &b, fresh); err != nil {
				t.Fatal(err)
			}
			if [32]byte(pa) != want || pa != pb || a != b || a.LastHash != pa.Hash() || a.Index != i {
				t.Fatalf("%v step %d", mode, i)
			}
		}
		// The wrong kind of step is refused and leaves the state alone.
		before := a
		wrong := &[32]byte{}
		if mode == Fresh {
			wrong = nil
		}
		if _, err := Step(src, testPair, &a, wrong); !errors.Is(err, ErrInvalidState) || a != before {
			t.Fatalf("%v: mismatched step: %v", mode, err)
		}
	}
	ts := NewState(Timestamp)
	if _, err := Step(src, testPair, &ts, nil); !errors.Is(err, ErrInvalidState) {
		t.Fatal("Step in timestamp mode")
	}
	if _, err := StartChain(src, testPair, &ts, 1); !errors.Is(err, ErrInvalidState) {
		t.Fatal("StartChain in timestamp mode")
	}
}

// A failing source leaves the state unchanged.
func TestSourceError(t *testing.T) {
	src := keysource.NewFile(testKey, "test")
	src.Close()
	st := NewState(HardwareRatchet)
	if _, err := StartChain(src, testPair, &st, 1); !errors.Is(err, keysource.ErrClosed) || st.Version != StateVersion || st.Index != 0 {
		t.Fatalf("closed source: %v %+v", err, st)
	}
}

func TestFallback(t *testing.T) {
	st := NewState(HardwareRatchet)
	st.MaxFailures = 2
	if st.Failed() {
		t.Fatal("fell back after one failure")
	}
	if !st.Failed() || !st.FallenBack {
		t.Fatal("no fallback after MaxFailures")
	}
	src := keysource.NewFile(testKey, "test")
	if _, err := StartChain(src, testPair, &st, 9); err != nil || st.FallenBack || st.Failures != 0 || st.MaxFailures != 2 {
		t.Fatalf("restart after fallback: %v %+v", err, st)
	}
	d := NewState(Fresh)
	for range DefaultMaxFailures - 1 {
		if d.Failed() {
			t.Fatal("early fallback")
		}
	}
	if !d.Failed() {
		t.Fatal("no fallback at DefaultMaxFailures")
	}
}

func benchSource() keysource.Source { return keysource.NewFile(testKey, "bench") }

func BenchmarkUpdateTimestamp(b *testing.B) {
	src, now := benchSource(), time.Now()
	for b.Loop() {
		p, _ := TimestampPSK(src, testPair, now)
		p.Zero()
	}
}

func BenchmarkUpdateHashRatchet(b *testing.B) {
	st := NewState(HashRatchet)
	cur, _ := StartChain(benchSource(), testPair, &st, 1)
	for b.Loop() {
		if st.Index == MaxHashRatchetIndex {
			st.Index = 0
		}
		next, err := HashStep(&cur, &st)
		if err != nil {
			b.Fatal(err)
		}
		cur = next
	}
}

func BenchmarkUpdateHardwareRatchet(b *testing.B) {
	src, st := benchSource(), NewState(HardwareRatchet)
	StartChain(src, testPair, &st, 1)
	for b.Loop() {
		p, _ := Step(src, testPair, &st, nil)
		p.Zero()
	}
}

// BenchmarkUpdateFresh is one whole fresh step: the ML-KEM-768 exchange
// (both sides) and the hardware operation.
func BenchmarkUpdateFresh(b *testing.B) {
	src, st := benchSource(), NewState(Fresh)
	StartChain(src, testPair, &st, 1)
	for b.Loop() {
		o, offer, _ := NewOffer(zeroReader{}, st.Epoch, st.Index+1)
		answer, _, _ := Answer(offer, st.Epoch, st.Index+1)
		fresh, err := o.Finish(answer)
		if err != nil {
			b.Fatal(err)
		}
		p, _ := Step(src, testPair, &st, &fresh)
		p.Zero()
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }
