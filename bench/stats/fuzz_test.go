package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// floats decodes b as little-endian float64s, at most limit of them.
func floats(b []byte, limit int) []float64 {
	var s []float64
	for len(b) >= 8 && len(s) < limit {
		s = append(s, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	}
	return s
}

func encode(xs ...float64) []byte {
	var b []byte
	for _, v := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func FuzzSummary(f *testing.F) {
	f.Add(encode(3, 4, 5, 4, 4, 4, 4, 3, 2, 5), uint8(2))
	f.Add(encode(1, math.NaN()), uint8(0))
	f.Add(encode(math.MaxFloat64, -math.MaxFloat64, 5e-324), uint8(3))
	f.Add(encode(7), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, rule uint8) {
		xs := floats(b, 4096)
		s, err := Summarize(xs)
		if err == nil {
			if !(s.Min <= s.Q1 && s.Q1 <= s.Median && s.Median <= s.Q3 && s.Q3 <= s.Max) {
				t.Fatalf("order broken: %+v", s)
			}
			ci := s.MedianCI
			if !(ci.Low <= s.Median && s.Median <= ci.High && ci.Level >= 0 && ci.Level <= 1) {
				t.Fatalf("median interval %+v around %v", ci, s.Median)
			}
			if !(s.SD >= 0) || s.N != len(xs) {
				t.Fatalf("SD %v, N %d", s.SD, s.N)
			}
		}
		kept, dropped, err := Filter(xs, Rule(rule%5))
		if err == nil && len(kept)+dropped != len(xs) {
			t.Fatalf("Filter kept %d dropped %d of %d", len(kept), dropped, len(xs))
		}
	})
}

func FuzzMannWhitney(f *testing.F) {
	f.Add(encode(hwX...), uint8(len(hwX)), uint8(0))
	f.Add(encode(rhA...), uint8(10), uint8(1))
	f.Add(encode(1, 1, 1), uint8(1), uint8(2))
	f.Add(encode(0, math.Inf(1)), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, split, opts uint8) {
		xs := floats(b, 120)
		k := min(int(split), len(xs))
		x, y := xs[:k], xs[k:]
		o := &Options{Alternative: Alternative(opts % 3), Method: Method(opts / 3 % 3), NoCorrection: opts&64 != 0}
		r, err := MannWhitney(x, y, o)
		if err != nil {
			return
		}
		mn := float64(len(x) * len(y))
		if !(r.P >= 0 && r.P <= 1) || r.U1+r.U2 != mn || r.U1 < 0 || r.U2 < 0 || !(r.Delta >= -1 && r.Delta <= 1) {
			t.Fatalf("invariant broken: %+v", r)
		}
		if !(r.ShiftCI.Low <= r.Shift && r.Shift <= r.ShiftCI.High) || !(r.ShiftCI.Level >= 0 && r.ShiftCI.Level <= 1) {
			t.Fatalf("shift %v outside %+v", r.Shift, r.ShiftCI)
		}
	})
}
