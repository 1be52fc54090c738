package opaque

import (
	"bytes"
	"crypto/rand"
	"runtime"
	"testing"
	"time"

	"github.com/kexlab/kexlab/bench/meter"
)

// The benchmarks use identities (as the uniform interface does) and the
// identity KSF unless the name says scrypt, so that they measure the
// protocol; the KSF is the client's deliberate extra cost.

var benchIDs = Identities{Client: []byte("client@kexlab"), Server: []byte("server.kexlab")}

func BenchmarkRegistration(b *testing.B) {
	for _, c := range []struct {
		name string
		ksf  KSF
	}{{"identity", Identity}, {"scrypt", Scrypt}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := Config{KSF: c.ksf}
			keys, _ := GenerateServerKeys(rand.Reader)
			server, _ := NewServer(cfg, keys)
			client, _ := NewClient(cfg)
			loop(b, func() {
				reg, req, err := client.CreateRegistrationRequest(rand.Reader, pw)
				if err != nil {
					b.Fatal(err)
				}
				req, _ = ParseRegistrationRequest(req.Bytes())
				resp, err := server.CreateRegistrationResponse(req, []byte("user-1"))
				if err != nil {
					b.Fatal(err)
				}
				resp, _ = ParseRegistrationResponse(resp.Bytes())
				rec, _, err := reg.FinalizeRegistrationRequest(rand.Reader, resp, benchIDs)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ParseRegistrationRecord(rec.Bytes()); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkFullRun runs a whole login (KE1, KE2, KE3) through the wire
// encodings with the state machines of the uniform interface.
func BenchmarkFullRun(b *testing.B) {
	for _, c := range []struct {
		name string
		ksf  KSF
	}{{"identity", Identity}, {"scrypt", Scrypt}} {
		b.Run(c.name, func(b *testing.B) {
			fx := newFixtureKSF(b, c.ksf, pw, benchIDs)
			loop(b, func() {
				fullRun(b, fx)
			})
		})
	}
}

func fullRun(b *testing.B, fx *fixture) {
	cp, _ := NewClientParty(rand.Reader, fx.cfg, pw, benchIDs)
	sp, _ := NewServerParty(rand.Reader, fx.server, fx.record, fx.cid, benchIDs)
	ke1, err := cp.Next(nil)
	if err != nil {
		b.Fatal(err)
	}
	ke2, err := sp.Next(ke1)
	if err != nil {
		b.Fatal(err)
	}
	ke3, err := cp.Next(ke2)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sp.Next(ke3); err != nil || !sp.Done() {
		b.Fatal(err)
	}
}

// loop runs f for the benchmark and reports, besides wall time, the CPU
// time of the benchmark's thread per operation (cpu-ns/op), which other load
// on the machine disturbs far less.
func loop(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := meter.ThreadCPUOrWall()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64((meter.ThreadCPUOrWall()-t0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// fixedRun returns fixed randomness for the client and the server, and the
// messages a login with it produces, so that one party can be timed alone.
func fixedRun(b *testing.B) (fx *fixture, clientRand, serverRand, ke1, ke2, ke3 []byte) {
	fx = newFixture(b, pw, benchIDs)
	clientRand = make([]byte, 48+2*32)
	serverRand = make([]byte, 3*32)
	rand.Read(clientRand)
	rand.Read(serverRand)
	st, m1, err := fx.client.GenerateKE1(bytes.NewReader(clientRand), pw)
	if err != nil {
		b.Fatal(err)
	}
	_, m2, err := fx.server.GenerateKE2(bytes.NewReader(serverRand), fx.record, fx.cid, m1, benchIDs)
	if err != nil {
		b.Fatal(err)
	}
	m3, _, _, err := st.GenerateKE3(m2, benchIDs)
	if err != nil {
		b.Fatal(err)
	}
	return fx, clientRand, serverRand, m1.Bytes(), m2.Bytes(), m3.Bytes()
}

// BenchmarkClient times the client's part of a login: GenerateKE1, then
// parsing KE2 and GenerateKE3 (identity KSF).
func BenchmarkClient(b *testing.B) {
	fx, clientRand, _, _, ke2b, _ := fixedRun(b)
	loop(b, func() {
		st, _, err := fx.client.GenerateKE1(bytes.NewReader(clientRand), pw)
		if err != nil {
			b.Fatal(err)
		}
		ke2, err := ParseKE2(ke2b)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := st.GenerateKE3(ke2, benchIDs); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkServer times the server's part of a login: parsing KE1,
// GenerateKE2, then parsing KE3 and ServerFinish.
func BenchmarkServer(b *testing.B) {
	fx, _, serverRand, ke1b, _, ke3b := fixedRun(b)
	loop(b, func() {
		ke1, err := ParseKE1(ke1b)
		if err != nil {
			b.Fatal(err)
		}
		st, _, err := fx.server.GenerateKE2(bytes.NewReader(serverRand), fx.record, fx.cid, ke1, benchIDs)
		if err != nil {
			b.Fatal(err)
		}
		ke3, _ := ParseKE3(ke3b)
		if _, err := st.ServerFinish(ke3); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkUnavoidable times Unavoidable's Online, the group operations a
// login cannot do without, for the ratio FullRun / Unavoidable.
func BenchmarkUnavoidable(b *testing.B) {
	f, err := Unavoidable(rand.Reader, Identity)
	if err != nil {
		b.Fatal(err)
	}
	floorRun := func() {
		if err := f.Online(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("total", func(b *testing.B) {
		loop(b, floorRun)
	})
	// ratio alternates a full login (identity KSF) with the unavoidable
	// operations and reports the ratio of the CPU time of the benchmark's
	// thread spent in each, which a loaded machine disturbs far less than
	// the wall time of two separate benchmarks.
	b.Run("ratio", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fx := newFixture(b, pw, benchIDs)
		var full, floor time.Duration
		for b.Loop() {
			t0 := meter.ThreadCPUOrWall()
			fullRun(b, fx)
			t1 := meter.ThreadCPUOrWall()
			floorRun()
			full, floor = full+t1-t0, floor+meter.ThreadCPUOrWall()-t1
		}
		b.ReportMetric(float64(full.Nanoseconds())/float64(b.N), "full-cpu-ns/op")
		b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "floor-cpu-ns/op")
		b.ReportMetric(float64(full)/float64(floor), "full/floor")
	})
}
