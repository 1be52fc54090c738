// Command go-opaque is a kexlab peer driver: it times complete OPAQUE-3DH
// logins of github.com/bytemare/opaque (v0.10.0, from the Go module proxy)
// configured like kexlab's "opaque" scheme (OPRF and AKE on P-256, SHA-256
// for the KDF, MAC and hash), once with the scrypt KSF (N=32768, r=8, p=1,
// as kexlab's opaque uses at every login) and once with the identity KSF (no
// password stretching, the protocol cost alone).
//
// A sample is one login: client and server created, KE1, KE2 and KE3
// serialized and parsed, both MACs checked, the session keys compared. The
// registration is done once per configuration before the samples, as
// kexlab times it separately (Op "register"). After a warm-up the
// configurations are sampled round-robin. The output is a
// kexlab-results/1 file, which `kexlab report` reads.
//
// Usage: go-opaque [-n 100] [-warmup 5] -o out/peers/go-opaque.json
//
//	go-opaque -serve   (kexlab-peer/1 on stdin/stdout for kexlab compare
//	                    -peer; see kexlab's bench/peer: a hello line, then
//	                    "sample I" -> "I WALL_NS THREAD_CPU_NS BYTES")
package main

import (
	"bufio"
	"bytes"
	"crypto"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/bytemare/ksf"
	"github.com/bytemare/opaque"
)

var password = []byte("password")

// peer is one configuration of the library and the server-side state of
// its registered user.
type peer struct {
	name, suite string
	conf        *opaque.Configuration
	skS, pkS    []byte
	seed        []byte
	record      *opaque.ClientRecord
	samples     []int64
	wire        int
}

func newPeer(name, suite string, k ksf.Identifier) (*peer, error) {
	conf := &opaque.Configuration{
		OPRF: opaque.P256Sha256, AKE: opaque.P256Sha256,
		KDF: crypto.SHA256, MAC: crypto.SHA256, Hash: crypto.SHA256,
		KSF: k,
	}
	p := &peer{name: name, suite: suite, conf: conf, seed: conf.GenerateOPRFSeed()}
	p.skS, p.pkS = conf.KeyGen()
	client, err := conf.Client()
	if err != nil {
		return nil, err
	}
	server, err := conf.Server()
	if err != nil {
		return nil, err
	}
	pks, err := server.Deserialize.DecodeAkePublicKey(p.pkS)
	if err != nil {
		return nil, err
	}
	credID := []byte("client")
	req := client.RegistrationInit(password)
	resp := server.RegistrationResponse(req, pks, credID, p.seed)
	rec, _ := client.RegistrationFinalize(resp)
	p.record = &opaque.ClientRecord{CredentialIdentifier: credID, RegistrationRecord: rec}
	return p, nil
}

// login runs one complete login and returns the bytes sent.
func (p *peer) login() (int, error) {
	client, err := p.conf.Client()
	if err != nil {
		return 0, err
	}
	server, err := p.conf.Server()
	if err != nil {
		return 0, err
	}
	if err := server.SetKeyMaterial(nil, p.skS, p.pkS, p.seed); err != nil {
		return 0, err
	}
	ke1 := client.LoginInit(password).Serialize()
	m1, err := server.Deserialize.KE1(ke1)
	if err != nil {
		return 0, err
	}
	ke2m, err := server.LoginInit(m1, p.record)
	if err != nil {
		return 0, err
	}
	ke2 := ke2m.Serialize()
	m2, err := client.Deserialize.KE2(ke2)
	if err != nil {
		return 0, err
	}
	ke3m, _, err := client.LoginFinish(m2)
	if err != nil {
		return 0, err
	}
	ke3 := ke3m.Serialize()
	m3, err := server.Deserialize.KE3(ke3)
	if err != nil {
		return 0, err
	}
	if err := server.LoginFinish(m3); err != nil {
		return 0, err
	}
	if !bytes.Equal(client.SessionKey(), server.SessionKey()) {
		return 0, errors.New("session keys differ")
	}
	return len(ke1) + len(ke2) + len(ke3), nil
}

// The subset of kexlab's bench.Results (format kexlab-results/1) written.
type results struct {
	Format   string    `json:"format"`
	Label    string    `json:"label"`
	Source   string    `json:"source"`
	Machine  machine   `json:"machine"`
	Settings settings  `json:"settings"`
	Energy   energy    `json:"energy"`
	Schemes  []scheme  `json:"schemes"`
	Samples  []sample  `json:"samples"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
}

type machine struct {
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"go_version"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	Time       string `json:"time"`
}

type settings struct {
	N      int `json:"n"`
	MinN   int `json:"min_n"`
	Warmup int `json:"warmup"`
}

type energy struct {
	Measured bool   `json:"measured"`
	Reason   string `json:"reason"`
}

type scheme struct {
	Name            string `json:"name"`
	Suite           string `json:"suite"`
	Spec            string `json:"spec"`
	Augmented       bool   `json:"augmented"`
	KeyConfirmation bool   `json:"key_confirmation"`
	Size            int    `json:"size"`
	StudySize       int    `json:"study_size"`
	Planned         int    `json:"planned"`
	N               int    `json:"n"`
}

type sample struct {
	Scheme    string `json:"scheme"`
	Op        string `json:"op"`
	Seq       int    `json:"seq"`
	Iter      int    `json:"iter"`
	WallNs    int64  `json:"wall_ns"`
	WireBytes int    `json:"wire_bytes"`
}

func main() {
	n := flag.Int("n", 100, "samples per configuration")
	warmup := flag.Int("warmup", 5, "warm-up logins per configuration")
	out := flag.String("o", "go-opaque.json", "output file (kexlab-results/1)")
	serveMode := flag.Bool("serve", false, "speak kexlab-peer/1 on stdin/stdout (kexlab compare -peer)")
	flag.Parse()
	run := run
	if *serveMode {
		run = func(int, int, string) error { return serve() }
	}
	if err := run(*n, *warmup, *out); err != nil {
		fmt.Fprintln(os.Stderr, "go-opaque:", err)
		os.Exit(1)
	}
}

// configurations are the two the driver times, with the kexlab scheme
// each is tested against.
var configurations = []struct {
	name, ksf      string
	id             ksf.Identifier
	kexlab, differ string
}{
	{"peer go opaque 0.10.0 (scrypt)", "KSF scrypt N=32768 r=8 p=1", ksf.Scrypt, "opaque",
		"same suite and KSF (scrypt N=32768, r=8, p=1 at every login)"},
	{"peer go opaque 0.10.0 (no KSF)", "KSF identity (no stretching)", 0, "",
		"no kexlab row: kexlab's opaque always runs scrypt at login"},
}

const opaqueSuite = "OPAQUE-3DH P256-SHA256 (OPRF, AKE on P-256; HKDF/HMAC/SHA-256), "

func newPeers() ([]*peer, error) {
	var peers []*peer
	for _, c := range configurations {
		p, err := newPeer(c.name, opaqueSuite+c.ksf, c.id)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		peers = append(peers, p)
	}
	return peers, nil
}

// serve speaks kexlab-peer/1: every sample runs on this goroutine, locked
// to its OS thread, whose CPU clock times it.
func serve() error {
	runtime.LockOSThread()
	peers, err := newPeers()
	if err != nil {
		return err
	}
	type desc struct {
		Name            string `json:"name"`
		Suite           string `json:"suite"`
		Spec            string `json:"spec"`
		Augmented       bool   `json:"augmented"`
		KeyConfirmation bool   `json:"key_confirmation"`
		Kexlab          string `json:"kexlab"`
		Op              string `json:"op"`
		Differs         string `json:"differs"`
	}
	hello := struct {
		Protocol string `json:"protocol"`
		Label    string `json:"label"`
		Source   string `json:"source"`
		Schemes  []desc `json:"schemes"`
	}{Protocol: "kexlab-peer/1", Label: "peer-go", Source: "kexlab peers/go-opaque (" + runtime.Version() + ")"}
	for i, p := range peers {
		hello.Schemes = append(hello.Schemes, desc{Name: p.name, Suite: p.suite, Spec: opaqueSpec,
			Augmented: true, KeyConfirmation: true, Kexlab: configurations[i].kexlab, Op: "full", Differs: configurations[i].differ})
	}
	b, err := json.Marshal(hello)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "%s\n", b)
	w.Flush()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 || f[0] == "quit" {
			break
		}
		i := -1
		if len(f) == 2 {
			i, _ = strconv.Atoi(f[1])
		}
		if i < 0 || i >= len(peers) {
			fmt.Fprintf(w, "error %d bad request\n", max(i, 0))
			w.Flush()
			continue
		}
		c, start := threadCPU(), time.Now()
		wire, err := peers[i].login()
		ns, cpu := time.Since(start).Nanoseconds(), threadCPU()-c
		if err != nil {
			fmt.Fprintf(w, "error %d %s\n", i, strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Fprintf(w, "%d %d %d %d\n", i, max(ns, 1), max(cpu, 0), wire)
		}
		w.Flush()
	}
	return in.Err()
}

// threadCPU is the calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID),
// 0 where it cannot be read.
func threadCPU() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return ts.Nano()
}

const opaqueSpec = "RFC 9807 as implemented by github.com/bytemare/opaque v0.10.0"

func run(n, warmup int, out string) error {
	peers, err := newPeers()
	if err != nil {
		return err
	}
	r := results{
		Format: "kexlab-results/1", Label: "peer-go", Source: "kexlab peers/go-opaque (github.com/bytemare/opaque v0.10.0, P-256)",
		Machine: machine{
			Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
			GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
			Time: time.Now().UTC().Format(time.RFC3339),
		},
		Settings: settings{N: n, MinN: n, Warmup: warmup},
		Energy:   energy{Reason: "not measured by the peer driver"},
		Started:  time.Now().UTC(),
	}
	for range warmup {
		for _, p := range peers {
			if _, err := p.login(); err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
		}
	}
	for i := range n {
		for _, p := range peers {
			start := time.Now()
			wire, err := p.login()
			ns := time.Since(start).Nanoseconds()
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			p.samples, p.wire = append(p.samples, ns), wire
			r.Samples = append(r.Samples, sample{Scheme: p.name, Op: "full",
				Seq: len(r.Samples), Iter: i, WallNs: ns, WireBytes: wire})
		}
	}
	r.Finished = time.Now().UTC()
	for _, p := range peers {
		r.Schemes = append(r.Schemes, scheme{Name: p.name, Suite: p.suite,
			Spec:      opaqueSpec,
			Augmented: true, KeyConfirmation: true, Size: p.wire, StudySize: p.wire,
			Planned: n, N: len(p.samples)})
		s := append([]int64(nil), p.samples...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		fmt.Fprintf(os.Stderr, "%s: median %d ns over %d\n", p.name, s[len(s)/2], len(s))
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}
