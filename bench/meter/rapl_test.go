package meter

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeZone writes a powercap zone as the kernel lays it out.
func fakeZone(t *testing.T, root, zone, name string, energy, max uint64) string {
	t.Helper()
	dir := filepath.Join(root, zone)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, v := range map[string]string{
		"name":                name + "\n",
		"energy_uj":           strconv.FormatUint(energy, 10) + "\n",
		"max_energy_range_uj": strconv.FormatUint(max, 10) + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func setEnergy(t *testing.T, dir string, v uint64) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "energy_uj"), []byte(strconv.FormatUint(v, 10)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRAPLReadAndWrap(t *testing.T) {
	root := t.TempDir()
	pkg := fakeZone(t, root, "intel-rapl:0", "package-0", 1000, 262143328850)
	core := fakeZone(t, root, "intel-rapl:0:0", "core", 262143328000, 262143328850)
	// A non-RAPL zone must be ignored.
	fakeZone(t, root, "intel-rapl-mmio:0", "package-0", 5, 10)

	r, err := OpenRAPL(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), ","); got != "package-0,core" {
		t.Fatalf("domains %q", got)
	}
	before, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	setEnergy(t, pkg, 1500)
	setEnergy(t, core, 150) // wrapped: 850 to the top, then 150
	after, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	d := r.Delta(before, after)
	if d["package-0"] != 500 || d["core"] != 1000 {
		t.Fatalf("delta %v, want package-0 500, core 1000", d)
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct{ b, a, max, want uint64 }{
		{10, 20, 100, 10},
		{90, 10, 100, 20},
		{0, 0, 100, 0},
		{100, 0, 100, 0},
	} {
		if got := Wrap(c.b, c.a, c.max); got != c.want {
			t.Errorf("Wrap(%d, %d, %d) = %d, want %d", c.b, c.a, c.max, got, c.want)
		}
	}
}

func TestRAPLUnreadable(t *testing.T) {
	if _, err := OpenRAPL(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "no powercap") {
		t.Fatalf("missing root: %v", err)
	}
	empty := t.TempDir()
	if _, err := OpenRAPL(empty); err == nil || !strings.Contains(err.Error(), "no intel-rapl zone") {
		t.Fatalf("empty root: %v", err)
	}
	root := t.TempDir()
	dir := fakeZone(t, root, "intel-rapl:0", "package-0", 1, 10)
	if err := os.WriteFile(filepath.Join(dir, "energy_uj"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRAPL(root); err == nil || !strings.Contains(err.Error(), "not readable") {
		t.Fatalf("unparsable counter: %v", err)
	}
	if os.Geteuid() != 0 {
		if err := os.WriteFile(filepath.Join(dir, "energy_uj"), []byte("1"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "energy_uj"), 0o000); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenRAPL(root); err == nil || !strings.Contains(err.Error(), "root-only") {
			t.Fatalf("unreadable counter: %v", err)
		}
	}
}

func TestThreadCPU(t *testing.T) {
	// The clock is per OS thread: without the lock the goroutine may move
	// to another thread between the two readings.
	defer LockThread()()
	a, err := ThreadCPU()
	if err != nil {
		t.Skip("no thread CPU clock:", err)
	}
	x := 0
	for i := 0; i < 1e7; i++ {
		x += i * i
	}
	_ = x
	b, err := ThreadCPU()
	if err != nil || b <= a {
		t.Fatalf("ThreadCPU went from %v to %v (%v)", a, b, err)
	}
}
