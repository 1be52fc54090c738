package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/bench"
)

func TestLimits(t *testing.T) {
	r := &bench.Results{Schemes: []bench.SchemeInfo{
		{Name: "a", FloorOps: []string{"2 × x", "1 × y"}},
		{Name: "b"}, // online, floor with a password part
		{Name: "c"}, // no floor samples
	}}
	add := func(scheme, op string, ns ...int64) {
		for i, v := range ns {
			r.Samples = append(r.Samples, bench.Sample{Scheme: scheme, Op: op, Iter: i, WallNs: v})
		}
	}
	add("a", bench.OpFull, 200, 300, 400, 500)
	add("a", bench.OpFloor, 100, 100, 200, 100) // ratios 2, 3, 2, 5
	add("a", bench.OpOnline, 150, 150, 150, 150)
	add("b", bench.OpFull, 1000, 1000, 1000)
	add("b", bench.OpFloor, 500, 500, 500)
	add("b", bench.OpOnline, 90, 90, 90)
	add("b", bench.OpFloorOnline, 60, 60, 30)
	add("c", bench.OpFull, 1, 2, 3)
	got := Limits(r)
	want := []struct {
		scheme, op, fop string
		ratio           float64
	}{
		{"a", bench.OpFull, bench.OpFloor, 2.5},
		{"a", bench.OpOnline, bench.OpFloor, 1.5}, // no floor-online: the floor bounds both
		{"b", bench.OpFull, bench.OpFloor, 2},
		{"b", bench.OpOnline, bench.OpFloorOnline, 1.5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d limits: %+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Scheme != w.scheme || g.Op != w.op || g.FloorOp != w.fop || g.Ratio.Median != w.ratio || g.Err != "" {
			t.Errorf("limit %d = %s %s/%s ratio %v (%s), want %s %s/%s %v", i, g.Scheme, g.Op, g.FloorOp, g.Ratio.Median, g.Err, w.scheme, w.op, w.fop, w.ratio)
		}
	}
	if got[0].Ops != "2 × x; 1 × y" || got[0].Exchange != 350 || got[0].Floor != 100 {
		t.Errorf("limit a: ops %q, exchange %v, floor %v", got[0].Ops, got[0].Exchange, got[0].Floor)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []*bench.Results{r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Primitive limit") || !strings.Contains(buf.String(), "2 × x; 1 × y") {
		t.Error("report has no primitive limit table")
	}
}
