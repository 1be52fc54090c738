// Command prims is the kexlab side of make prims (peers/prims/run.sh,
// peers/prims/prims.py): kexlab's primitives timed beside OpenSSL, GMP and
// Rust crates on the same fixed inputs.
//
// It reads one command a line from stdin, "OP BATCH ARGS..." (arguments in
// hex), runs OP BATCH times on those inputs and prints one line: the
// process CPU time per operation in nanoseconds (bench/meter.ProcessCPU,
// getrusage RUSAGE_SELF user+system, around the loop only: every
// goroutine's, the runtime's and the garbage collector's) and the SHA-256
// of the last result, which the script compares with the other drivers'
// before it times anything. Errors are one line "error ...".
//
//	modp-p BITS                   the group's name and prime p (hex)
//	modp BATCH BITS X E           modp Group.Exp(X, E): X as Size bytes,
//	                              E as given (its length sets the time)
//	p256-table BATCH K            group Point.TableMult(K, NewTable(G))
//	p256-base BATCH K             group Point.ScalarBaseMult(K) (nistec)
//	p256-table-enc, p256-base-enc the same with Point.Bytes (to affine,
//	                              uncompressed) inside the loop
//	pbkdf2 BATCH ITER DKLEN PW SALT  kexlabPBKDF2 (HMAC-SHA-256)
//	mlkem512 BATCH D Z M          circl mlkem512: NewKeyFromSeed(D‖Z),
//	                              EncapsulateTo(M), DecapsulateTo; the hash
//	                              is of pk ‖ ct ‖ ss
//	versions                      Go, the PBKDF2 implementation, modules (JSON)
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/group/modp"
)

// sink keeps results alive so that the compiler cannot drop the work.
var sink []byte

// modpGroup returns the kexlab MODP group of the given size: RFC 3526's
// primes where modp has them (3072: RFC3526Group15; 4096: RFC 5054's
// group, whose prime is RFC 3526's group 16), and RFC 5054's 2048-bit
// group (the Stanford SRP prime: modp has no RFC 3526 group 14).
func modpGroup(bits int) (*modp.Group, error) {
	if bits == 3072 {
		return modp.RFC3526Group15(), nil
	}
	return modp.RFC5054Group(bits)
}

var p256Table = sync.OnceValue(func() *group.Table { return group.NewTable(group.NewGenerator()) })

// timed runs f batch times and returns the CPU time per call in ns and the
// SHA-256 of the last result.
func timed(batch int, f func() []byte) (float64, []byte, error) {
	var last []byte
	t0, err := meter.ProcessCPU()
	if err != nil {
		return 0, nil, err
	}
	for range batch {
		last = f()
	}
	t1, err := meter.ProcessCPU()
	if err != nil {
		return 0, nil, err
	}
	sink = last
	sum := sha256.Sum256(last)
	return float64(t1-t0) / float64(batch), sum[:], nil
}

func unhex(args []string) ([][]byte, error) {
	out := make([][]byte, len(args))
	for i, a := range args {
		b, err := hex.DecodeString(a)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func command(f []string) (string, error) {
	switch {
	case f[0] == "versions":
		return versions(), nil
	case f[0] == "modp-p" && len(f) == 2:
		bits, err := strconv.Atoi(f[1])
		if err != nil {
			return "", err
		}
		g, err := modpGroup(bits)
		if err != nil {
			return "", err
		}
		return g.Name() + " " + hex.EncodeToString(g.P()), nil
	case len(f) < 2:
		return "", errors.New("no batch")
	}
	batch, err := strconv.Atoi(f[1])
	if err != nil || batch <= 0 {
		return "", fmt.Errorf("bad batch %q", f[1])
	}
	op, args := f[0], f[2:]
	var fn func() []byte
	switch {
	case op == "modp" && len(args) == 3:
		bits, err := strconv.Atoi(args[0])
		if err != nil {
			return "", err
		}
		g, err := modpGroup(bits)
		if err != nil {
			return "", err
		}
		b, err := unhex(args[1:])
		if err != nil {
			return "", err
		}
		x, err := g.ParseElement(b[0])
		if err != nil {
			return "", err
		}
		e := b[1]
		fn = func() []byte { return g.Exp(x, e).Bytes() }
	case strings.HasPrefix(op, "p256-") && len(args) == 1:
		b, err := unhex(args)
		if err != nil {
			return "", err
		}
		k, err := group.NewScalar().SetCanonicalBytes(b[0])
		if err != nil {
			return "", err
		}
		t := p256Table()
		mul := map[string]func() *group.Point{
			"p256-table": func() *group.Point { return group.NewPoint().TableMult(k, t) },
			"p256-base":  func() *group.Point { return group.NewPoint().ScalarBaseMult(k) },
		}
		name, enc := strings.CutSuffix(op, "-enc")
		m, ok := mul[name]
		if !ok {
			return "", fmt.Errorf("unknown op %q", op)
		}
		if enc {
			fn = func() []byte { return m().Bytes() }
		} else {
			// The point stays projective in the loop; the last one is
			// encoded for the hash after the clock has stopped.
			var p *group.Point
			ns, _, err := timedPoint(batch, func() { p = m() })
			if err != nil {
				return "", err
			}
			sum := sha256.Sum256(p.Bytes())
			return fmt.Sprintf("%.1f %x", ns, sum), nil
		}
	case op == "pbkdf2" && len(args) == 4:
		iter, err1 := strconv.Atoi(args[0])
		dklen, err2 := strconv.Atoi(args[1])
		b, err3 := unhex(args[2:])
		if err := errors.Join(err1, err2, err3); err != nil {
			return "", err
		}
		if iter < 1 || dklen < 1 || dklen > 1<<16 {
			return "", fmt.Errorf("pbkdf2: iterations %d, length %d", iter, dklen)
		}
		fn = func() []byte { return kexlabPBKDF2(b[0], b[1], iter, dklen) }
	case op == "mlkem512" && len(args) == 3:
		b, err := unhex(args)
		if err != nil {
			return "", err
		}
		if len(b[0]) != 32 || len(b[1]) != 32 || len(b[2]) != mlkem512.EncapsulationSeedSize {
			return "", errors.New("mlkem512: want 32-byte d, z and m")
		}
		seed := append(append([]byte(nil), b[0]...), b[1]...)
		m := b[2]
		fn = func() []byte {
			pk, sk := mlkem512.NewKeyFromSeed(seed)
			out := make([]byte, mlkem512.PublicKeySize+mlkem512.CiphertextSize+mlkem512.SharedKeySize)
			ppk, ct, ss := out[:mlkem512.PublicKeySize], out[mlkem512.PublicKeySize:mlkem512.PublicKeySize+mlkem512.CiphertextSize], out[mlkem512.PublicKeySize+mlkem512.CiphertextSize:]
			pk.EncapsulateTo(ct, ss, m)
			var ss2 [mlkem512.SharedKeySize]byte
			sk.DecapsulateTo(ss2[:], ct)
			if string(ss2[:]) != string(ss) {
				panic("prims: ML-KEM shared secrets differ")
			}
			pk.Pack(ppk)
			return out
		}
	default:
		return "", fmt.Errorf("unknown op or arguments %q", op)
	}
	ns, sum, err := timed(batch, fn)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%.1f %x", ns, sum), nil
}

// timedPoint is timed for an operation whose result is not bytes.
func timedPoint(batch int, f func()) (float64, []byte, error) {
	return timed(batch, func() []byte { f(); return nil })
}

// versions returns, as one line of JSON, the Go release, the PBKDF2
// implementation and the versions of the modules the kexlab side runs.
func versions() string {
	v := map[string]string{"go": runtime.Version(), "pbkdf2": pbkdf2Impl}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "filippo.io/bigmod", "filippo.io/nistec", "github.com/cloudflare/circl":
				v[d.Path] = d.Version
			}
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 {
			continue
		}
		s, err := command(f)
		if err != nil {
			s = "error " + strings.ReplaceAll(err.Error(), "\n", "; ")
		}
		fmt.Fprintln(out, s)
		out.Flush()
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "prims:", err)
		os.Exit(1)
	}
}
