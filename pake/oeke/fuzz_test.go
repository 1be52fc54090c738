package oeke

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// fuzzKey is a fixed password key: the fuzz targets never run PBKDF2.
var fuzzKey = bytes.Repeat([]byte{0x42}, PasswordKeySize)

// checkTyped fails t unless err is nil or an error a message may cause,
// and unless a failed party then refuses further use.
func checkTyped(t *testing.T, err error, next func() error) {
	if err == nil {
		return
	}
	if !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Fatalf("untyped error: %v", err)
	}
	if err := next(); !errors.Is(err, pakeerr.ErrState) {
		t.Fatalf("failed party reused: %v", err)
	}
}

// honestMessages runs an honest exchange and returns its messages and
// copies of the client waiting for message 2 and of the server waiting for
// message 3.
func honestMessages(f *testing.F, p *Params) (msgs [3][]byte, waitingClient *Client, waitingServer *Server) {
	c, _ := NewClient(rand.Reader, p, fuzzKey, testSession)
	s, _ := NewServer(rand.Reader, p, fuzzKey, testSession)
	msgs[0], _ = c.Next(nil)
	cc := *c
	cc.x, cc.pwKey = bytes.Clone(c.x), bytes.Clone(c.pwKey)
	var err error
	if msgs[1], err = s.Next(msgs[0]); err != nil {
		f.Fatal(err)
	}
	sc := *s
	if msgs[2], err = c.Next(msgs[1]); err != nil {
		f.Fatal(err)
	}
	return msgs, &cc, &sc
}

// FuzzServerMessage1 feeds arbitrary bytes to a server as X; the first
// input byte picks the suite.
func FuzzServerMessage1(f *testing.F) {
	for i, p := range suites {
		m, _, _ := honestMessages(f, p)
		f.Add(byte(i), m[0])
		f.Add(byte(i), []byte{})
	}
	f.Fuzz(func(t *testing.T, suite byte, in []byte) {
		p := suites[int(suite)%len(suites)]
		s, err := NewServer(rand.Reader, p, fuzzKey, testSession)
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.Next(in)
		checkTyped(t, err, func() error { _, err := s.Next(nil); return err })
		if err == nil && len(out) != p.Message2Size() {
			t.Fatalf("accepted X but sent %d bytes", len(out))
		}
	})
}

// FuzzClientMessage2 feeds arbitrary bytes to a client as IV ‖ Y*.
func FuzzClientMessage2(f *testing.F) {
	var waiting [2]*Client
	for i, p := range suites {
		m, c, _ := honestMessages(f, p)
		waiting[i] = c
		f.Add(byte(i), m[1])
		f.Add(byte(i), make([]byte, p.Message2Size()))
	}
	f.Fuzz(func(t *testing.T, suite byte, in []byte) {
		i := int(suite) % len(suites)
		c := *waiting[i]
		c.x, c.pwKey = bytes.Clone(c.x), bytes.Clone(c.pwKey)
		out, err := c.Next(in)
		checkTyped(t, err, func() error { _, err := c.Next(nil); return err })
		if err == nil && (len(out) != AuthSize || !c.Done()) {
			t.Fatalf("accepted message 2 but sent %d bytes", len(out))
		}
	})
}

// FuzzServerMessage3 feeds arbitrary bytes to a server as Auth.
func FuzzServerMessage3(f *testing.F) {
	var waiting [2]*Server
	var auth [2][]byte
	for i, p := range suites {
		m, _, s := honestMessages(f, p)
		waiting[i], auth[i] = s, m[2]
		f.Add(byte(i), m[2])
		f.Add(byte(i), []byte{})
	}
	f.Fuzz(func(t *testing.T, suite byte, in []byte) {
		i := int(suite) % len(suites)
		s := *waiting[i]
		s.pwKey = bytes.Clone(s.pwKey)
		out, err := s.Next(in)
		checkTyped(t, err, func() error { _, err := s.Next(nil); return err })
		if err == nil && (out != nil || !bytes.Equal(in, auth[i])) {
			t.Fatalf("accepted Auth %x", in)
		}
	})
}

// FuzzCBC feeds arbitrary ciphertexts to the CBC layer: cbcDecrypt must
// refuse them or return a plaintext that encrypts back to the input, and
// open must never return an element of the wrong length.
func FuzzCBC(f *testing.F) {
	iv := make([]byte, IVSize)
	ct, _ := cbcEncrypt(fuzzKey, iv, []byte("33 bytes of plaintext, padded...."))
	f.Add(ct)
	f.Add([]byte{})
	f.Add(make([]byte, 48))
	f.Fuzz(func(t *testing.T, ct []byte) {
		if len(ct) > 0 && len(ct)%16 == 0 {
			msg, err := cbcDecrypt(fuzzKey, iv, ct)
			if err == nil {
				back, err := cbcEncrypt(fuzzKey, iv, msg)
				if err != nil || !bytes.Equal(back, ct) {
					t.Fatalf("%x decrypts to %x, which encrypts to %x", ct, msg, back)
				}
			}
		}
		for _, p := range suites {
			y, err := open(fuzzKey, iv, ct, p.ElementSize())
			if err == nil && len(y) != p.ElementSize() {
				t.Fatalf("open returned %d bytes", len(y))
			}
			if err != nil && !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
				t.Fatalf("untyped error: %v", err)
			}
		}
	})
}
