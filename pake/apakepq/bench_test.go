package apakepq

import (
	"crypto/rand"
	"fmt"
	"testing"
)

// The benchmarks run at the default PBKDF2 count, where PBKDF2 dominates,
// and at 1, which shows the protocol's own cost over ML-KEM-512 and AES.
// BenchmarkUnavoidable is the floor each login cannot go below, measured in
// the same run.
var benchIterations = []int{DefaultIterations, 1}

func benchName(it int) string { return fmt.Sprintf("pbkdf2=%d", it) }

func benchRecord(b *testing.B, it int) *Record {
	r, err := Register([]byte("pw"), testSession.ClientID, testSession.ServerID, it)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkFullRun is one login: both parties, three messages; the record
// is parsed from bytes as a server fetching it from storage would.
func BenchmarkFullRun(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			enc := benchRecord(b, it).Bytes()
			for b.Loop() {
				rec, _ := ParseRecord(enc)
				c, _ := NewClient(rand.Reader, []byte("pw"), testSession, it)
				sv, _ := NewServer(rand.Reader, rec, testSession)
				m1, _ := c.Next(nil)
				m2, _ := sv.Next(m1)
				m3, err := c.Next(m2)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sv.Next(m3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClient is the client's side; the server's work is off the clock.
func BenchmarkClient(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			rec := benchRecord(b, it)
			for b.Loop() {
				c, _ := NewClient(rand.Reader, []byte("pw"), testSession, it)
				m1, _ := c.Next(nil)
				b.StopTimer()
				sv, _ := NewServer(rand.Reader, rec, testSession)
				m2, _ := sv.Next(m1)
				b.StartTimer()
				if _, err := c.Next(m2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServer is the server's side, including parsing the record; the
// client's work is off the clock.
func BenchmarkServer(b *testing.B) {
	enc := benchRecord(b, 1).Bytes()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		c, _ := NewClient(rand.Reader, []byte("pw"), testSession, 1)
		m1, _ := c.Next(nil)
		b.StartTimer()
		rec, _ := ParseRecord(enc)
		sv, _ := NewServer(rand.Reader, rec, testSession)
		m2, _ := sv.Next(m1)
		b.StopTimer()
		m3, err := c.Next(m2)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := sv.Next(m3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegister is registration: PBKDF2 and one key generation.
func BenchmarkRegister(b *testing.B) {
	for b.Loop() {
		benchRecord(b, DefaultIterations)
	}
}

// BenchmarkUnavoidable is the primitive floor of one login, Unavoidable's
// Password and Online at the benchmark's iteration count (the full login
// derives the client's secrets too). Hashing is not counted.
func BenchmarkUnavoidable(b *testing.B) {
	for _, it := range benchIterations {
		b.Run(benchName(it), func(b *testing.B) {
			f, err := Unavoidable(rand.Reader, it)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := f.Password(); err != nil {
					b.Fatal(err)
				}
				if err := f.Online(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
