package sqlcore

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestTake(t *testing.T) {
	const s = int64(time.Second / time.Microsecond)
	for _, tc := range []struct {
		name     string
		b        bucket
		now      int64
		rate     float64
		burst    int
		want     bucket
		ok       bool
		wait     time.Duration
		waitOver bool // wait is maxWait
	}{
		{"full", bucket{3, 0}, 0, 1, 3, bucket{2, 0}, true, 0, false},
		{"empty", bucket{0, 0}, 0, 1, 3, bucket{0, 0}, false, time.Second, false},
		{"refill", bucket{0, 0}, s / 2, 1, 3, bucket{0.5, s / 2}, false, 500 * time.Millisecond, false},
		{"refill and take", bucket{0.5, 0}, s, 1, 3, bucket{0.5, s}, true, 0, false},
		{"capped", bucket{0, 0}, 3600 * s, 1, 3, bucket{2, 3600 * s}, true, 0, false},
		{"smaller burst", bucket{9, 0}, 0, 1, 2, bucket{1, 0}, true, 0, false},
		{"clock back", bucket{0.5, 10 * s}, 0, 1, 3, bucket{0.5, 10 * s}, false, 500 * time.Millisecond, false},
		{"NaN stored", bucket{math.NaN(), 0}, 0, 1, 3, bucket{0, 0}, false, time.Second, false},
		{"negative stored", bucket{-5, 0}, s, 1, 3, bucket{0, s}, true, 0, false},
		{"tiny rate", bucket{0, 0}, 0, 1e-300, 1, bucket{0, 0}, false, 0, true},
		{"huge rate", bucket{0, 0}, 1, 1e300, math.MaxInt, bucket{math.MaxInt - 1, 1}, true, 0, false},
		{"just short", bucket{1 - 2e-9, 0}, 0, 1, 1, bucket{1 - 2e-9, 0}, false, time.Microsecond, false},
		{"within slack", bucket{1 - 1e-10, 0}, 0, 1, 1, bucket{0, 0}, true, 0, false},
	} {
		got, ok, wait := take(tc.b, tc.now, tc.rate, tc.burst)
		if tc.waitOver {
			tc.wait = maxWait
		}
		if got != tc.want || ok != tc.ok || wait != tc.wait {
			t.Errorf("%s: take = %+v, %v, %v; want %+v, %v, %v", tc.name, got, ok, wait, tc.want, tc.ok, tc.wait)
		}
	}
}

// TestTakeWait: for random buckets and rates, coming back after the wait
// gets a token and a microsecond earlier does not.
func TestTakeWait(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		rate := math.Pow(10, r.Float64()*8-2) // 0.01 to 1e6 tokens per second
		b := bucket{r.Float64(), r.Int64N(1 << 50)}
		now := b.updated + r.Int64N(10)
		nb, ok, wait := take(b, now, rate, 1+r.IntN(5))
		if ok {
			continue
		}
		if wait <= 0 || wait%time.Microsecond != 0 {
			t.Fatalf("%+v at %d, rate %v: wait %v", b, now, rate, wait)
		}
		w := int64(wait / time.Microsecond)
		if _, ok, _ := take(nb, now+w, rate, 1); !ok {
			t.Fatalf("%+v at %d, rate %v: no token after the wait %v", b, now, rate, wait)
		}
		if _, ok, _ := take(nb, now+w-1, rate, 1); ok {
			t.Fatalf("%+v at %d, rate %v: a token a microsecond before the wait %v", b, now, rate, wait)
		}
	}
}

func TestCheckMigrations(t *testing.T) {
	ok := []Migration{{1, "a", []string{"x"}}, {2, "b", []string{"y"}}}
	if err := checkMigrations(ok); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]Migration{
		{{2, "a", []string{"x"}}},
		{{1, "a", []string{"x"}}, {3, "b", []string{"y"}}},
		{{1, "a", nil}},
	} {
		if err := checkMigrations(bad); err == nil {
			t.Errorf("checkMigrations(%v) = nil", bad)
		}
	}
}
