package mcu

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/testvec"
	"github.com/kexlab/kexlab/wifi/lwc"
	"github.com/kexlab/kexlab/wifi/lwc/ace"
	"github.com/kexlab/kexlab/wifi/lwc/ascon"
	"github.com/kexlab/kexlab/wifi/lwc/spix"
	"github.com/kexlab/kexlab/wifi/lwc/wage"
)

// requireMCU reports whether missing toolchains fail the tests instead of
// skipping them (KEXLAB_REQUIRE_MCU=1).
func requireMCU() bool { return os.Getenv("KEXLAB_REQUIRE_MCU") == "1" }

// skipWithout skips (or, under KEXLAB_REQUIRE_MCU=1, fails) when err says
// a toolchain is missing.
func skipWithout(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, ErrToolchain) {
		if requireMCU() {
			t.Fatalf("KEXLAB_REQUIRE_MCU=1: %v", err)
		}
		t.Skip(err)
	}
}

// testKATs loads the KAT files through internal/testvec (../shared/vectors).
func testKATs(t *testing.T) *kats {
	t.Helper()
	dir := filepath.Dir(filepath.Dir(testvec.Path(t, "lwc/ACE.txt")))
	k, err := loadKATs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var hostSources = []string{"ace.c", "ace_hash.c", "spix.c", "wage.c", "ascon.c", "shapes.c", "kat.c", "bench.c", "host_main.c"}

// buildHost compiles the host runner with the machine's cc and the extra
// flags, warnings as errors.
func buildHost(t *testing.T, extra ...string) string {
	t.Helper()
	if err := need("cc"); err != nil {
		skipWithout(t, err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := writeSources(src); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "kat")
	args := []string{"-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-D_POSIX_C_SOURCE=200809L",
		"-DMCU_HAVE_ACE", "-DMCU_HAVE_SPIX", "-DMCU_HAVE_WAGE", "-DMCU_HAVE_ASCON", "-o", bin}
	args = append(args, extra...)
	for _, f := range hostSources {
		args = append(args, filepath.Join(src, f))
	}
	if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return bin
}

// TestHostKATs runs every KAT of the files through the C compiled for
// this machine, in both WAGE variants (barrel-shifter bit planes, and the
// table scan that AVR uses), and the short subset.
func TestHostKATs(t *testing.T) {
	k := testKATs(t)
	for _, v := range []struct {
		name  string
		flags []string
	}{{"default", nil}, {"no-barrel", []string{"-DLWC_NO_BARREL"}}} {
		t.Run(v.name, func(t *testing.T) {
			bin := buildHost(t, v.flags...)
			for _, short := range []bool{false, true} {
				args := []string{"kat"}
				if short {
					args = append(args, "short")
				}
				out, err := exec.Command(bin, args...).Output()
				if err != nil {
					t.Fatalf("%s %v: %v", bin, args, err)
				}
				o, err := Parse(bytes.NewReader(out))
				if err != nil {
					t.Fatal(err)
				}
				if !o.Ended || o.Failures != 0 {
					t.Fatalf("short=%v: ended %v with %d failures", short, o.Ended, o.Failures)
				}
				for _, c := range cipherOrder {
					passed, total, fails := k.check(o, c, short)
					want := 1089
					if short {
						want = 100
					}
					if c == "ace" {
						want += map[bool]int{false: 1025, true: 16}[short]
					}
					if len(fails) > 0 || passed != total || total != want {
						t.Errorf("short=%v %s: %d/%d passed (want %d): %v", short, c, passed, total, want, first(fails, 5))
					}
				}
			}
		})
	}
}

// server talks to the host runner's serve mode.
type server struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

func startServer(t *testing.T, bin string) *server {
	cmd := exec.Command(bin, "serve")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, in: in, out: bufio.NewReader(out), cmd: cmd}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return s
}

func hx(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return hex.EncodeToString(b)
}

// ask sends a command and returns the answer: bytes, or nil for "fail".
func (s *server) ask(format string, args ...any) []byte {
	s.t.Helper()
	fmt.Fprintf(s.in, format+"\n", args...)
	line, err := s.out.ReadString('\n')
	if err != nil {
		s.t.Fatal(err)
	}
	line = strings.TrimSpace(line)
	switch line {
	case "fail":
		return nil
	case "error":
		s.t.Fatalf("runner rejected %q", fmt.Sprintf(format, args...))
	case "-":
		return []byte{}
	}
	b, err := hex.DecodeString(line)
	if err != nil {
		s.t.Fatalf("answer %q: %v", line, err)
	}
	return b
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestHostMatchesGo checks the C against kexlab's Go reference on random
// inputs: AEAD encryption and decryption (and rejection of a flipped
// bit), the talk's KDF and MIC exactly as wifi/lwc computes them, the
// permutations and ACE-H-256.
func TestHostMatchesGo(t *testing.T) {
	for _, v := range []struct {
		name  string
		flags []string
	}{{"default", nil}, {"no-barrel", []string{"-DLWC_NO_BARREL"}}} {
		t.Run(v.name, func(t *testing.T) {
			s := startServer(t, buildHost(t, v.flags...))
			r := rand.New(rand.NewPCG(21, 1))
			for _, c := range lwc.Ciphers() {
				for i := range 40 {
					key, nonce := randBytes(r, 16), randBytes(r, 16)
					ad, msg := randBytes(r, r.IntN(70)), randBytes(r, r.IntN(70))
					if i == 0 {
						ad, msg = nil, nil
					}
					a, err := c.New(key)
					if err != nil {
						t.Fatal(err)
					}
					want := a.Seal(nil, nonce, msg, ad)
					got := s.ask("enc %s %s %s %s %s", c.Name, hx(key), hx(nonce), hx(ad), hx(msg))
					if !bytes.Equal(got, want) {
						t.Fatalf("%s enc(%d, %d) = %x, want %x", c.Name, len(ad), len(msg), got, want)
					}
					if pt := s.ask("dec %s %s %s %s %s", c.Name, hx(key), hx(nonce), hx(ad), hx(want)); !bytes.Equal(pt, msg) {
						t.Fatalf("%s dec = %x, want %x", c.Name, pt, msg)
					}
					want[r.IntN(len(want))] ^= 1 << r.IntN(8)
					if pt := s.ask("dec %s %s %s %s %s", c.Name, hx(key), hx(nonce), hx(ad), hx(want)); pt != nil {
						t.Fatalf("%s dec of a tampered ciphertext = %x, want failure", c.Name, pt)
					}
				}
				for i := range 10 {
					pmk, an, sn := randBytes(r, 32), randBytes(r, 32), randBytes(r, 32)
					var aa, spa [6]byte
					copy(aa[:], randBytes(r, 6))
					copy(spa[:], randBytes(r, 6))
					if i == 1 { // equal prefixes: the order is decided later
						copy(sn, an[:31])
						copy(spa[:], aa[:5])
					}
					want, err := c.KDF(pmk, aa, spa, an, sn)
					if err != nil {
						t.Fatal(err)
					}
					if got := s.ask("kdf %s %s %s %s %s %s", c.Name, hx(pmk), hx(aa[:]), hx(spa[:]), hx(an), hx(sn)); !bytes.Equal(got, want) {
						t.Fatalf("%s KDF = %x, want %x", c.Name, got, want)
					}
				}
				for _, n := range []int{0, 1, 32, 95, 121, 200} {
					kck, frame := randBytes(r, 16), randBytes(r, n)
					want, err := c.MIC(kck, frame)
					if err != nil {
						t.Fatal(err)
					}
					if got := s.ask("mic %s %s %s", c.Name, hx(kck), hx(frame)); !bytes.Equal(got, want) {
						t.Fatalf("%s MIC(%d) = %x, want %x", c.Name, n, got, want)
					}
				}
			}
			for range 5 {
				var a, as [40]byte
				var sp [32]byte
				var w [37]byte
				copy(a[:], randBytes(r, 40))
				copy(as[:], randBytes(r, 40))
				copy(sp[:], randBytes(r, 32))
				for i := range w {
					w[i] = byte(r.Uint32()) & 0x7f
				}
				for _, p := range []struct {
					name string
					in   []byte
					perm func()
					out  []byte
				}{
					{"ace", bytes.Clone(a[:]), func() { ace.Permute(&a) }, a[:]},
					{"ascon", bytes.Clone(as[:]), func() { ascon.Permute(&as) }, as[:]},
					{"spix", bytes.Clone(sp[:]), func() { spix.Permute(&sp) }, sp[:]},
					{"wage", bytes.Clone(w[:]), func() { wage.Permute(&w) }, w[:]},
				} {
					p.perm()
					if got := s.ask("perm %s %s", p.name, hx(p.in)); !bytes.Equal(got, p.out) {
						t.Fatalf("%s permutation = %x, want %x", p.name, got, p.out)
					}
				}
			}
			for _, n := range []int{0, 7, 8, 100, 1000} {
				msg := randBytes(r, n)
				want := ace.Sum256(msg)
				if got := s.ask("hash %s", hx(msg)); !bytes.Equal(got, want[:]) {
					t.Fatalf("ACE-H-256(%d bytes) = %x, want %x", n, got, want)
				}
			}
		})
	}
}
