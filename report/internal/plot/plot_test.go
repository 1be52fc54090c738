package plot

import "testing"

func TestLogScaleTicks(t *testing.T) {
	s := newLogScale(1000, 1e6, 0, 100)
	ticks := s.ticks()
	if len(ticks) == 0 || len(ticks) > 8 {
		t.Fatalf("ticks %v", ticks)
	}
	for _, v := range ticks {
		if x := s.at(v); x < 0 || x > 100 {
			t.Errorf("tick %v at %v outside the axis", v, x)
		}
	}
	if s.at(1000) >= s.at(1e6) {
		t.Error("scale not increasing")
	}
}
