package srp_test

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/srp"
)

// The interoperability tests run ProfileRFC5054 against independent SRP-6a
// implementations installed from the package registries by
// scripts/srp-peers.sh (make srp-peers), which puts one executable per peer
// in $KEXLAB_SRP_PEERS:
//
//	pysrp-ctypes   PyPI srp 1.0.22 (pysrp), rfc5054_enable(), OpenSSL backend
//	pysrp-python   the same, pure-Python backend
//	rustcrypto     crates.io srp 0.7.0-rc.3, Client::new / Server::new
//
// (drivers in peers/srp-interop/). Each reads one JSON request per line and
// answers one JSON line, byte strings in hex:
//
//	{"op":"verifier", suite, "I", "P"[, "s"]}   → {"s", "v"}
//	{"op":"client", suite, "I", "P"[, "a"]}     → {"A"}
//	   {"s", "B"} → {"M1"};  {"M2"} → {"ok", "K"}
//	{"op":"server", suite, "I", "s", "v", "A"[, "b"]} → {"B"}
//	   {"M1"} → {"M2", "K"}
//
// where suite is "bits", "hash" and, for pysrp's 3072-bit group, "N" and
// "g"; a and b, when given, force the peer's ephemeral secret, and any
// answer may be {"error"}. The tests run every suite in both directions,
// with registration on either side, and force the runs where A, B or S is
// below 2^(8*(ElementSize-1)), the values whose encoding the profile fixes.

var interopSuites = []struct {
	bits int
	hash crypto.Hash
}{{2048, crypto.SHA1}, {2048, crypto.SHA256}, {3072, crypto.SHA1}, {3072, crypto.SHA256}}

var interopPeers = []string{"pysrp-ctypes", "pysrp-python", "rustcrypto"}

// peerDir returns $KEXLAB_SRP_PEERS, or skips the test when it is unset,
// unless KEXLAB_REQUIRE_SRP_PEERS=1 (as make test sets it).
func peerDir(t *testing.T) string {
	dir := os.Getenv("KEXLAB_SRP_PEERS")
	if dir == "" {
		if os.Getenv("KEXLAB_REQUIRE_SRP_PEERS") == "1" {
			t.Fatal("KEXLAB_SRP_PEERS is not set: run scripts/srp-peers.sh (make srp-peers)")
		}
		t.Skip("KEXLAB_SRP_PEERS is not set: run make srp-peers and set it to peers/srp-interop/bin")
	}
	return dir
}

// peer is a running driver.
type peer struct {
	name, path string
	cmd        *exec.Cmd
	in         io.WriteCloser
	out        *bufio.Reader
}

func startPeer(t *testing.T, dir, name string) *peer {
	pr := &peer{name: name, path: filepath.Join(dir, name)}
	if err := pr.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pr.stop(); err != nil {
			t.Errorf("peer %s: %v", name, err)
		}
	})
	return pr
}

func (pr *peer) start() error {
	pr.cmd = exec.Command(pr.path)
	pr.cmd.Stderr = os.Stderr
	in, err1 := pr.cmd.StdinPipe()
	out, err2 := pr.cmd.StdoutPipe()
	if err := errors.Join(err1, err2, pr.cmd.Start()); err != nil {
		return fmt.Errorf("starting peer %s: %w", pr.name, err)
	}
	pr.in, pr.out = in, bufio.NewReader(out)
	return nil
}

func (pr *peer) stop() error {
	pr.in.Close()
	return pr.cmd.Wait()
}

// restart replaces a driver left in the middle of a session (after a run
// that failed on either side) by a fresh one.
func (pr *peer) restart(t *testing.T) {
	pr.cmd.Process.Kill()
	pr.stop()
	if err := pr.start(); err != nil {
		t.Fatal(err)
	}
}

// call sends one request and returns the answer's fields, decoded from
// hex, or an error for an {"error"} answer.
func (pr *peer) call(req map[string]any) (map[string][]byte, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := pr.in.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("peer %s: %w", pr.name, err)
	}
	answer, err := pr.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("peer %s: %w", pr.name, err)
	}
	var fields map[string]any
	if err := json.Unmarshal(answer, &fields); err != nil {
		return nil, fmt.Errorf("peer %s: %q: %w", pr.name, answer, err)
	}
	if e, ok := fields["error"]; ok {
		return nil, fmt.Errorf("peer %s: %v", pr.name, e)
	}
	out := map[string][]byte{}
	for k, v := range fields {
		switch v := v.(type) {
		case string:
			b, err := hex.DecodeString(v)
			if err != nil {
				return nil, fmt.Errorf("peer %s: %s: %w", pr.name, k, err)
			}
			out[k] = b
		case bool:
			if v {
				out[k] = []byte{1}
			}
		}
	}
	return out, nil
}

// suite returns the request fields naming p's group and hash.
func suite(p *srp.Params) map[string]any {
	return map[string]any{
		"bits": p.Group().BitLen(),
		"hash": map[crypto.Hash]string{crypto.SHA1: "sha1", crypto.SHA256: "sha256"}[p.Hash()],
		"N":    hex.EncodeToString(p.Group().P()),
		"g":    hex.EncodeToString(p.Group().G()),
	}
}

func request(p *srp.Params, op string, fields ...any) map[string]any {
	req := suite(p)
	req["op"] = op
	for i := 0; i+1 < len(fields); i += 2 {
		if b, ok := fields[i+1].([]byte); ok {
			if b == nil {
				continue
			}
			fields[i+1] = hex.EncodeToString(b)
		}
		req[fields[i].(string)] = fields[i+1]
	}
	return req
}

// ephemeral is a forced exponent (a or b), or nil: the party draws its own.
type ephemeral []byte

// reader returns the reader from which kexlab draws e, or crypto/rand.
func (e ephemeral) reader() io.Reader {
	if e == nil {
		return rand.Reader
	}
	return bytes.NewReader(e)
}

// kexlabClient runs a kexlab client against the peer as server.
func kexlabClient(pr *peer, p *srp.Params, id, pw []byte, rec *srp.Record, a, b ephemeral) (kc, ks []byte, err error) {
	c, err := srp.NewClient(a.reader(), p, id, pw)
	if err != nil {
		return nil, nil, err
	}
	A, err := c.Next(nil)
	if err != nil {
		return nil, nil, err
	}
	r, err := pr.call(request(p, "server", "I", id, "s", rec.Salt, "v", rec.Verifier, "A", A, "b", []byte(b)))
	if err != nil {
		return nil, nil, err
	}
	M1, err := c.Next(append(append([]byte{byte(len(rec.Salt))}, rec.Salt...), r["B"]...))
	if err != nil {
		return nil, nil, err
	}
	if r, err = pr.call(map[string]any{"M1": hex.EncodeToString(M1)}); err != nil {
		return nil, nil, err
	}
	if out, err := c.Next(r["M2"]); out != nil || err != nil {
		return nil, nil, fmt.Errorf("kexlab client checking M2: %x, %w", out, err)
	}
	kc, err = c.SessionKey()
	return kc, r["K"], err
}

// peerClient runs the peer as client against a kexlab server.
func peerClient(pr *peer, p *srp.Params, id, pw []byte, rec *srp.Record, a, b ephemeral) (kc, ks []byte, err error) {
	r, err := pr.call(request(p, "client", "I", id, "P", pw, "a", []byte(a)))
	if err != nil {
		return nil, nil, err
	}
	s, err := srp.NewServer(b.reader(), p, id, rec)
	if err != nil {
		return nil, nil, err
	}
	m2, err := s.Next(r["A"])
	if err != nil {
		return nil, nil, err
	}
	n := 1 + int(m2[0]) // int: in byte arithmetic 1+m2[0] wraps at 255
	salt, B := m2[1:n], m2[n:]
	if r, err = pr.call(map[string]any{"s": hex.EncodeToString(salt), "B": hex.EncodeToString(B)}); err != nil {
		return nil, nil, err
	}
	M2, err := s.Next(r["M1"])
	if err != nil {
		return nil, nil, err
	}
	if r, err = pr.call(map[string]any{"M2": hex.EncodeToString(M2)}); err != nil {
		return nil, nil, err
	}
	if r["ok"] == nil {
		return nil, nil, fmt.Errorf("peer %s client refused kexlab's M2", pr.name)
	}
	ks, err = s.SessionKey()
	return r["K"], ks, err
}

// oracle finds forced exponents with math/big, independently of the
// package: a, b of 32 bytes such that A, B or S has a zero top byte in
// PAD encoding.
type oracle struct {
	N, g, k, v *big.Int
	size       int
	h          crypto.Hash
}

func newOracle(p *srp.Params, verifier []byte) *oracle {
	o := &oracle{N: new(big.Int).SetBytes(p.Group().P()), g: new(big.Int).SetBytes(p.Group().G()),
		v: new(big.Int).SetBytes(verifier), size: p.ElementSize(), h: p.Hash()}
	o.k = new(big.Int).SetBytes(o.hash(o.N.Bytes(), o.pad(o.g)))
	return o
}

func (o *oracle) pad(x *big.Int) []byte { return x.FillBytes(make([]byte, o.size)) }

func (o *oracle) hash(parts ...[]byte) []byte {
	d := o.h.New()
	for _, b := range parts {
		d.Write(b)
	}
	return d.Sum(nil)
}

func (o *oracle) short(x *big.Int) bool { return x.BitLen() <= 8*(o.size-1) }

func random32() (ephemeral, *big.Int) {
	e := make([]byte, 32)
	rand.Read(e)
	return e, new(big.Int).SetBytes(e)
}

func (o *oracle) A(a *big.Int) *big.Int { return new(big.Int).Exp(o.g, a, o.N) }

func (o *oracle) B(b *big.Int) *big.Int {
	B := new(big.Int).Exp(o.g, b, o.N)
	B.Add(B, new(big.Int).Mul(o.k, o.v))
	return B.Mod(B, o.N)
}

// S returns the premaster secret of a and b (RFC 5054 §2.6, server side).
func (o *oracle) S(a, b *big.Int) *big.Int {
	A, B := o.A(a), o.B(b)
	u := new(big.Int).SetBytes(o.hash(o.pad(A), o.pad(B)))
	base := new(big.Int).Mul(A, new(big.Int).Exp(o.v, u, o.N))
	return base.Exp(base, b, o.N)
}

// find draws a and b until cond holds (about 256 draws).
func (o *oracle) find(t *testing.T, forceA, forceB bool, cond func(a, b *big.Int) bool) (ephemeral, ephemeral) {
	for range 20000 {
		ea, a := random32()
		eb, b := random32()
		if cond(a, b) {
			if !forceA {
				ea = nil
			}
			if !forceB {
				eb = nil
			}
			return ea, eb
		}
	}
	t.Fatal("no edge case found in 20000 draws")
	return nil, nil
}

// edgeCase is one run: a and b forced, or nil (the party draws its own).
type edgeCase struct {
	name string
	a, b ephemeral
}

// edgeCases returns the runs of one direction: random ones, and a, b forced
// so that A, B or S (with this verifier) has a zero top byte.
func edgeCases(t *testing.T, p *srp.Params, verifier []byte) []edgeCase {
	o := newOracle(p, verifier)
	type run = edgeCase
	runs := []run{{name: "random 1"}, {name: "random 2"}, {name: "random 3"}}
	a, _ := o.find(t, true, false, func(a, _ *big.Int) bool { return o.short(o.A(a)) })
	runs = append(runs, run{"A with a zero top byte", a, nil})
	_, b := o.find(t, false, true, func(_, b *big.Int) bool { return o.short(o.B(b)) })
	runs = append(runs, run{"B with a zero top byte", nil, b})
	a, b = o.find(t, true, true, func(a, b *big.Int) bool { return o.short(o.S(a, b)) })
	runs = append(runs, run{"S with a zero top byte", a, b})
	return runs
}

// TestInteropSRP runs kexlab's ProfileRFC5054 against each peer in both
// directions for 2048 and 3072 bits with SHA-1 and SHA-256, with
// registration done by kexlab (the peer as server) and by the peer (kexlab
// as server, on the peer's verifier, which may be shorter than N), with
// forced leading zero bytes in A, B and S, and a wrong password, which
// must fail on both sides.
func TestInteropSRP(t *testing.T) {
	dir := peerDir(t)
	id, pw := []byte("alice@example.org"), []byte("correct horse battery staple")
	var table []string
	peers := map[string]*peer{}
	for _, name := range interopPeers {
		peers[name] = startPeer(t, dir, name)
	}
	for _, st := range interopSuites {
		p, err := srp.NewParams(st.bits, st.hash)
		if err != nil {
			t.Fatal(err)
		}
		// Registration by kexlab; each peer serves from the record.
		rec, err := srp.Register(nil, p, id, pw)
		if err != nil {
			t.Fatal(err)
		}
		recRuns := edgeCases(t, p, rec.Verifier)
		for _, name := range interopPeers {
			pr := peers[name]
			t.Run(fmt.Sprintf("%d-%v/%s", st.bits, st.hash, name), func(t *testing.T) {
				// Registration by the peer (the Rust crate takes its salt
				// from the caller: a random one, a zero first byte allowed).
				var salt []byte
				if name == "rustcrypto" {
					salt = make([]byte, 16)
					rand.Read(salt)
				}
				r, err := pr.call(request(p, "verifier", "I", id, "P", pw, "s", salt))
				if err != nil {
					t.Fatal(err)
				}
				peerRec := &srp.Record{Salt: r["s"], Verifier: r["v"]}
				directions := []struct {
					name string
					run  func(*peer, *srp.Params, []byte, []byte, *srp.Record, ephemeral, ephemeral) ([]byte, []byte, error)
					rec  *srp.Record
					runs []edgeCase
				}{
					{"kexlab client → " + name + " server", kexlabClient, rec, recRuns},
					{name + " client → kexlab server", peerClient, peerRec, edgeCases(t, p, peerRec.Verifier)},
				}
				for _, d := range directions {
					for _, run := range d.runs {
						kc, ks, err := d.run(pr, p, id, pw, d.rec, run.a, run.b)
						if err != nil {
							t.Errorf("%s, %s: %v", d.name, run.name, err)
							pr.restart(t)
							continue
						}
						if len(kc) != p.HashSize() || !bytes.Equal(kc, ks) {
							t.Errorf("%s, %s: client K %x, server K %x", d.name, run.name, kc, ks)
						}
					}
					// The server refuses M1: kexlab with ErrAuthFailed, the
					// peers with their "M1 refused".
					if _, _, err := d.run(pr, p, id, []byte("wrong password"), d.rec, nil, nil); !errors.Is(err, pakeerr.ErrAuthFailed) && (err == nil || !strings.Contains(err.Error(), "M1 refused")) {
						t.Errorf("%s: wrong password: %v, want M1 refused", d.name, err)
					}
					pr.restart(t)
					if !t.Failed() {
						table = append(table, fmt.Sprintf("%-40s %-20s ok (%d runs + wrong password)", d.name, p.Name(), len(d.runs)))
					}
				}
			})
		}
	}
	t.Logf("interop table:\n%s", strings.Join(table, "\n"))
}
