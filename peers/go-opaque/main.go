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
package main

import (
	"bytes"
	"crypto"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"time"

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
	flag.Parse()
	if err := run(*n, *warmup, *out); err != nil {
		fmt.Fprintln(os.Stderr, "go-opaque:", err)
		os.Exit(1)
	}
}

func run(n, warmup int, out string) error {
	const suite = "OPAQUE-3DH P256-SHA256 (OPRF, AKE on P-256; HKDF/HMAC/SHA-256), "
	var peers []*peer
	for _, c := range []struct {
		name, ksf string
		id        ksf.Identifier
	}{
		{"peer go opaque 0.10.0 (scrypt)", "KSF scrypt N=32768 r=8 p=1", ksf.Scrypt},
		{"peer go opaque 0.10.0 (no KSF)", "KSF identity (no stretching)", 0},
	} {
		p, err := newPeer(c.name, suite+c.ksf, c.id)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		peers = append(peers, p)
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
			Spec:      "RFC 9807 as implemented by github.com/bytemare/opaque v0.10.0",
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
