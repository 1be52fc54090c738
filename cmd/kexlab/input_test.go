package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/wg/daemon"
)

// wantOneLineError runs the CLI on input it must refuse and checks what
// every refusal gives: exit status code, exactly one line on stderr that
// contains want, no Go trace, nothing on stdout, and no time spent
// measuring or reading.
func wantOneLineError(t *testing.T, code int, want string, args ...string) {
	t.Helper()
	start := time.Now()
	got, out, errOut := runCLI(args...)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("%q took %v: it should fail before any work", args, d)
	}
	if got != code {
		t.Errorf("%q: exit %d, want %d\nstderr: %s", args, got, code, errOut)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "\n") {
		t.Errorf("%q: stderr is not one line:\n%s", args, errOut)
	}
	if !strings.Contains(errOut, want) {
		t.Errorf("%q: stderr %q does not say %q", args, errOut, want)
	}
	for _, trace := range []string{"goroutine ", "panic", "runtime."} {
		if strings.Contains(errOut, trace) {
			t.Errorf("%q: a Go trace on stderr:\n%s", args, errOut)
		}
	}
	if out != "" {
		t.Errorf("%q: stdout %q", args, out)
	}
}

// sparse makes a file of size bytes that takes no disk.
func sparse(t *testing.T, path string, size int64) string {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReportRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	html := filepath.Join(dir, "r.html")
	t.Run("dev-zero", func(t *testing.T) {
		wantOneLineError(t, 1, "kexlab report: /dev/zero is a character device, not a regular file",
			"report", "-o", html, "/dev/zero")
	})
	t.Run("directory", func(t *testing.T) {
		wantOneLineError(t, 1, dir+" is a directory, not a regular file", "report", "-o", html, dir)
	})
	t.Run("over-limit", func(t *testing.T) {
		big := sparse(t, filepath.Join(dir, "big.json"), export.MaxJSON+1)
		wantOneLineError(t, 1, big+" is 256.0 MiB (268435457 bytes), over the 256 MiB limit", "report", "-o", html, big)
	})
	t.Run("missing", func(t *testing.T) {
		wantOneLineError(t, 1, "no such file", "report", "-o", html, filepath.Join(dir, "missing.json"))
	})
	if _, err := os.Stat(html); err == nil {
		t.Error("a refused report wrote its HTML")
	}
}

// TestReportJMHWithNaN: a JMH file whose unused secondary metric is "NaN"
// (as JMH writes it) renders.
func TestReportJMHWithNaN(t *testing.T) {
	html := filepath.Join(t.TempDir(), "r.html")
	jmh := filepath.Join("..", "..", "bench", "importer", "testdata", "jmh_nan.json")
	if code, out, errOut := runCLI("report", "-o", html, jmh); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "SignatureBench.sign") {
		t.Errorf("report: %v", err)
	}
}

// TestReportRail: -rail shows a Jetpack run's rail; a rail no run has is a
// one-line usage error that lists the rails there are.
func TestReportRail(t *testing.T) {
	html := filepath.Join(t.TempDir(), "r.html")
	jp := filepath.Join("..", "..", "bench", "importer", "testdata", "jetpack.json")
	wantOneLineError(t, 2, "-rail gpu: no run has that rail (google Pixel 5: total, cpu.big)", "report", "-rail", "gpu", "-o", html, jp)
	if code, out, errOut := runCLI("report", "-rail", "cpu.big", "-o", html, jp); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "shown: rail cpu.big") {
		t.Errorf("report with -rail cpu.big: %v", err)
	}
}

func TestWGRunRefusesBadConfigFiles(t *testing.T) {
	dir := t.TempDir()
	t.Run("dev-zero", func(t *testing.T) {
		wantOneLineError(t, 1, "kexlab wg: /dev/zero is a character device, not a regular file",
			"wg", "run", "-config", "/dev/zero")
	})
	t.Run("directory", func(t *testing.T) {
		wantOneLineError(t, 1, dir+" is a directory, not a regular file", "wg", "run", "-config", dir)
	})
	t.Run("over-limit", func(t *testing.T) {
		big := sparse(t, filepath.Join(dir, "big.json"), daemon.MaxConfigFile+1)
		wantOneLineError(t, 1, "over the 1 MiB limit", "wg", "run", "-config", big)
	})
}

func TestCompareRefusesBeforeMeasuring(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	quick := []string{"compare", "-q", "-schemes", "cpace", "-n", "4", "-min-n", "3", "-warmup", "1", "-time", "0"}
	with := func(extra ...string) []string { return append(append([]string{}, quick...), extra...) }
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("duplicate-scheme", func(t *testing.T) {
		wantOneLineError(t, 2, `scheme "cpace" listed twice`, "compare", "-q", "-schemes", "cpace,cpace", "-out", out)
		if _, err := os.Stat(out); err == nil {
			t.Error("-out created for a refused command line")
		}
	})
	t.Run("unknown-profile", func(t *testing.T) {
		wantOneLineError(t, 2, `unknown profile "fast" (known: study, recommended, all)`, "compare", "-profile", "fast", "-out", out)
	})
	t.Run("schemes-and-profile", func(t *testing.T) {
		wantOneLineError(t, 2, "-schemes and -profile exclude each other", with("-profile", "study", "-out", out)...)
	})
	t.Run("peer-twice", func(t *testing.T) {
		driver := filepath.Join(dir, "driver.sh")
		hello := `{"protocol":"kexlab-peer/1","label":"x","schemes":[{"name":"peer x","kexlab":"cpace","op":"full"}]}`
		if err := os.WriteFile(driver, []byte("#!/bin/sh\necho '"+hello+"'\ncat >/dev/null\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		wantOneLineError(t, 2, `a scheme named "peer x" is already measured`, with("-peer", driver, "-peer", driver, "-out", out)...)
	})
	t.Run("peer-not-a-driver", func(t *testing.T) {
		wantOneLineError(t, 1, `-peer "true": peer true: peer: protocol error: the driver's output ended`, with("-peer", "true", "-out", out)...)
	})
	t.Run("min-n-over-n", func(t *testing.T) {
		wantOneLineError(t, 2, "-min-n 10 is larger than -n 5", "compare", "-n", "5", "-min-n", "10", "-out", out)
	})
	for name, args := range map[string][]string{
		"negative-n":      {"-n", "-5"},
		"negative-min-n":  {"-min-n", "-1"},
		"zero-warmup":     {"-warmup", "0"},
		"negative-budget": {"-time", "-1s"},
	} {
		t.Run(name, func(t *testing.T) {
			wantOneLineError(t, 2, "need -n >= 2", with(append(args, "-out", out)...)...)
		})
	}
	t.Run("n-too-large", func(t *testing.T) {
		most := maxN(1)
		wantOneLineError(t, 2, "use -n "+strconv.Itoa(most)+" or less",
			"compare", "-q", "-schemes", "cpace", "-n", strconv.Itoa(most+1), "-out", out)
	})
	t.Run("out-is-a-file", func(t *testing.T) {
		wantOneLineError(t, 2, "-out "+file+" is a file, not a directory", with("-out", file)...)
		if b, err := os.ReadFile(file); err != nil || string(b) != "not a directory" {
			t.Errorf("the file given as -out changed: %v %q", err, b)
		}
	})
	t.Run("out-under-a-file", func(t *testing.T) {
		wantOneLineError(t, 1, "-out: cannot create the directory", with("-out", filepath.Join(file, "sub"))...)
	})
	t.Run("out-empty", func(t *testing.T) {
		wantOneLineError(t, 2, "-out is empty", with("-out", "")...)
	})
	t.Run("output-is-a-directory", func(t *testing.T) {
		d := filepath.Join(dir, "taken")
		if err := os.MkdirAll(filepath.Join(d, "results.json"), 0o755); err != nil {
			t.Fatal(err)
		}
		wantOneLineError(t, 1, filepath.Join(d, "results.json")+" is a directory, not a regular file", with("-out", d)...)
	})
	t.Run("out-not-writable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes into a read-only directory")
		}
		d := filepath.Join(dir, "ro")
		if err := os.Mkdir(d, 0o500); err != nil {
			t.Fatal(err)
		}
		wantOneLineError(t, 1, "-out "+d+" is not writable", with("-out", d)...)
	})
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".kexlab-compare-") {
			t.Errorf("probe file %s left behind", e.Name())
		}
	}
}

// TestFlagErrorsOneLine: a flag the flag package cannot read gets one line
// (its error), not the error followed by the whole usage text.
func TestFlagErrorsOneLine(t *testing.T) {
	for _, c := range []struct {
		want string
		args []string
	}{
		{`invalid value "99999999999999999999" for flag -overhead`, []string{"wifi", "handshake", "-overhead", "99999999999999999999"}},
		{`invalid value "9999999h" for flag -perframe`, []string{"wifi", "handshake", "-perframe", "9999999h"}},
		{`invalid value "x" for flag -n`, []string{"compare", "-n", "x"}},
		{"flag provided but not defined: -zz", []string{"report", "-zz", "f"}},
		{"flag provided but not defined: -bogus", []string{"wg", "run", "-bogus"}},
		{`invalid boolean value "maybe" for -json`, []string{"schemes", "-json=maybe"}},
	} {
		wantOneLineError(t, 2, c.want, c.args...)
	}
}

// TestServeRefuses: kexlab serve refuses plain HTTP on a non-loopback
// address and out-of-range flags, in one line, before it creates anything.
func TestServeRefuses(t *testing.T) {
	dir := t.TempDir()
	data := dir + "/data"
	for _, c := range []struct {
		want string
		args []string
	}{
		{"not a loopback address", []string{"serve", "-data", data, "-addr", "0.0.0.0:8080"}},
		{"not a loopback address", []string{"serve", "-data", data, "-addr", "[::]:0"}},
		{"-tls-cert and -tls-key go together", []string{"serve", "-data", data, "-tls-cert", "c.pem"}},
		{"-max-failures 101", []string{"serve", "-data", data, "-max-failures", "101"}},
		{"-flow-ttl", []string{"serve", "-data", data, "-flow-ttl", "0s"}},
		{"-addr", []string{"serve", "-data", data, "-addr", "nonsense"}},
		{"postgres:// URL", []string{"serve", "-data", data, "-db", "mysql://x"}},
		{"-register-rate", []string{"serve", "-data", data, "-register-rate", "0"}},
		{"-register-rate", []string{"serve", "-data", data, "-addr-burst", "0"}},
		{"-scrypt-n 3: want a power of 2", []string{"serve", "-data", data, "-scrypt-n", "3"}},
		{"-scrypt-n 0", []string{"serve", "-data", data, "-scrypt-n", "0"}},
	} {
		wantOneLineError(t, 2, c.want, c.args...)
	}
}

// TestLoadRefuses: kexlab load drives loopback services only, and refuses
// out-of-range flags in one line before it sends anything.
func TestLoadRefuses(t *testing.T) {
	for _, c := range []struct {
		code int
		want string
		args []string
	}{
		{2, "loopback services only", []string{"load", "-url", "http://10.1.2.3:8080"}},
		{2, "loopback services only", []string{"load", "-url", "http://example.com"}},
		{2, "want http(s)://host:port", []string{"load", "-url", "ftp://127.0.0.1"}},
		{2, "want http(s)://host:port", []string{"load", "-url", "127.0.0.1:8080"}},
		{2, "concurrency 0", []string{"load", "-c", "0"}},
		{2, "rate -1", []string{"load", "-rate", "-1"}},
		{2, "accounts 0", []string{"load", "-accounts", "0"}},
		{2, "duration 0s", []string{"load", "-duration", "0s"}},
	} {
		wantOneLineError(t, c.code, c.want, c.args...)
	}
}
