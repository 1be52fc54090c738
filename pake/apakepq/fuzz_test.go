package apakepq

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The fuzz targets derive the password's secrets once, outside the loop:
// PBKDF2 never runs per input.
var fuzzSecrets = secretsFromHash(bytes.Repeat([]byte{7}, 32))

func fuzzRecord() *Record {
	enc := make([]byte, RecordSize)
	copy(enc, fuzzSecrets.rw)
	fuzzSecrets.ek.Pack(enc[rwSize:])
	r, err := ParseRecord(enc)
	if err != nil {
		panic(err)
	}
	return r
}

func isTyped(err error) bool {
	return errors.Is(err, pakeerr.ErrInvalidMessage) || errors.Is(err, pakeerr.ErrAuthFailed)
}

// FuzzParseRecord: any bytes either parse to a record that re-encodes to
// themselves, or fail with ErrInvalidParameter.
func FuzzParseRecord(f *testing.F) {
	f.Add(fuzzRecord().Bytes())
	f.Add([]byte{})
	f.Add(make([]byte, RecordSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRecord(b)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidParameter) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(r.Bytes(), b) {
			t.Fatalf("record does not round-trip")
		}
	})
}

// FuzzServerMessage1 feeds arbitrary bytes to the server as message 1.
func FuzzServerMessage1(f *testing.F) {
	rec := fuzzRecord()
	c, _ := newClient(rand.Reader, fuzzSecrets, testSession)
	m1, _ := c.Next(nil)
	f.Add(m1)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		sv, err := NewServer(rand.Reader, rec, testSession)
		if err != nil {
			t.Fatal(err)
		}
		out, err := sv.Next(in)
		if err != nil {
			if !isTyped(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(out) != Message2Size {
			t.Fatalf("message 2 of %d bytes", len(out))
		}
	})
}

// FuzzClientMessage2 feeds arbitrary bytes to a client waiting for
// message 2; the seed is a genuine message 2 for another session, so
// mutations explore the OCAKE part, the nonce and ψ.
func FuzzClientMessage2(f *testing.F) {
	rec := fuzzRecord()
	c, _ := newClient(rand.Reader, fuzzSecrets, testSession)
	m1, _ := c.Next(nil)
	sv, _ := NewServer(rand.Reader, rec, testSession)
	m2, _ := sv.Next(m1)
	f.Add(m2)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		c, _ := newClient(rand.Reader, fuzzSecrets, testSession)
		if _, err := c.Next(nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Next(in); err == nil {
			t.Fatal("client accepted a message 2 for another session")
		} else if !isTyped(err) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

// FuzzServerMessage3 feeds arbitrary bytes to a server waiting for σ. The
// server is put in that state directly (its message 2 is not computed per
// input), so each iteration is just the check of message 3.
func FuzzServerMessage3(f *testing.F) {
	expect := bytes.Repeat([]byte{0x5a}, Message3Size)
	f.Add(make([]byte, Message3Size))
	f.Add([]byte{})
	f.Add(expect[:Message3Size-1])
	f.Fuzz(func(t *testing.T, in []byte) {
		sv := &Server{exchange: exchange{state: stateWaiting}, expect: bytes.Clone(expect), sk: make([]byte, KeySize)}
		_, err := sv.Next(in)
		if bytes.Equal(in, expect) {
			if err != nil || !sv.Done() {
				t.Fatalf("the expected σ was refused: %v", err)
			}
			return
		}
		if err == nil {
			t.Fatal("server accepted a forged σ")
		}
		if !isTyped(err) {
			t.Fatalf("untyped error %v", err)
		}
		if _, err := sv.Next(expect); !errors.Is(err, pakeerr.ErrState) {
			t.Fatalf("failed server reused: %v", err)
		}
	})
}
