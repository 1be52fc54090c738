package srp

import (
	"crypto"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The fuzz targets use the 1024-bit group with SHA-1, where an accepted
// message costs a few short exponentiations. Each iteration works on a
// copy of a party prepared once, so that it only runs the handler under
// test.

type fuzzSetup struct {
	p      *Params
	rec    *Record
	msgs   [4][]byte
	client *Client // waiting for message 2
	confC  *Client // waiting for message 4
	server *Server // waiting for message 1
	confS  *Server // waiting for message 3
}

func newFuzzSetup(f *testing.F) *fuzzSetup {
	p, err := NewParams(1024, crypto.SHA1)
	if err != nil {
		f.Fatal(err)
	}
	rec, err := Register(rand.Reader, p, testID, testPW)
	if err != nil {
		f.Fatal(err)
	}
	fs := &fuzzSetup{p: p, rec: rec}
	c, _ := NewClient(rand.Reader, p, testID, testPW)
	s, _ := NewServer(rand.Reader, p, testID, rec)
	fs.server = copyServer(s)
	fs.msgs[0], _ = c.Next(nil)
	fs.client = copyClient(c)
	fs.msgs[1], _ = s.Next(fs.msgs[0])
	fs.confS = copyServer(s)
	if fs.msgs[2], err = c.Next(fs.msgs[1]); err != nil {
		f.Fatal(err)
	}
	fs.confC = copyClient(c)
	if fs.msgs[3], err = s.Next(fs.msgs[2]); err != nil {
		f.Fatal(err)
	}
	return fs
}

// copyClient and copyServer copy a party, including its secret slices, so
// that the copy can fail without touching the original.
func copyClient(c *Client) *Client {
	d := *c
	d.inner, d.a = append([]byte(nil), c.inner...), append([]byte(nil), c.a...)
	return &d
}

func copyServer(s *Server) *Server {
	d := *s
	d.b = append([]byte(nil), s.b...)
	return &d
}

// checkTyped fails t unless err is nil or one of the errors a message may
// cause, and unless a failed party refuses further use.
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

// FuzzServerMessage1 feeds arbitrary bytes to the server as PAD(A).
func FuzzServerMessage1(f *testing.F) {
	fs := newFuzzSetup(f)
	f.Add(fs.msgs[0])
	f.Add([]byte{})
	f.Add(fs.p.group.P())
	f.Fuzz(func(t *testing.T, in []byte) {
		s := copyServer(fs.server)
		out, err := s.Next(in)
		checkTyped(t, err, func() error { _, err := s.Next(nil); return err })
		if err == nil && len(out) != len(fs.msgs[1]) {
			t.Fatalf("accepted A but sent %d bytes", len(out))
		}
	})
}

// FuzzClientMessage2 feeds arbitrary bytes to the client as len(s)|s|PAD(B).
func FuzzClientMessage2(f *testing.F) {
	fs := newFuzzSetup(f)
	f.Add(fs.msgs[1])
	f.Add([]byte{})
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		c := copyClient(fs.client)
		out, err := c.Next(in)
		checkTyped(t, err, func() error { _, err := c.Next(nil); return err })
		if err == nil && len(out) != fs.p.HashSize() {
			t.Fatalf("accepted message 2 but sent %d bytes", len(out))
		}
	})
}

// FuzzServerMessage3 feeds arbitrary bytes to the server as M1.
func FuzzServerMessage3(f *testing.F) {
	fs := newFuzzSetup(f)
	f.Add(fs.msgs[2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		s := copyServer(fs.confS)
		out, err := s.Next(in)
		checkTyped(t, err, func() error { _, err := s.Next(nil); return err })
		if err == nil && (string(out) != string(fs.msgs[3]) || !s.Done()) {
			t.Fatalf("accepted M1 %x", in)
		}
	})
}

// FuzzClientMessage4 feeds arbitrary bytes to the client as M2.
func FuzzClientMessage4(f *testing.F) {
	fs := newFuzzSetup(f)
	f.Add(fs.msgs[3])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		c := copyClient(fs.confC)
		out, err := c.Next(in)
		checkTyped(t, err, func() error { _, err := c.Next(nil); return err })
		if err == nil && (out != nil || string(in) != string(fs.msgs[3])) {
			t.Fatalf("accepted M2 %x", in)
		}
	})
}

// FuzzParseRecord feeds arbitrary bytes to ParseRecord: it must return a
// record that encodes back to the input, or an ErrInvalidParameter.
func FuzzParseRecord(f *testing.F) {
	fs := newFuzzSetup(f)
	b, _ := fs.rec.MarshalBinary()
	f.Add(b)
	f.Add([]byte{})
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := ParseRecord(fs.p, in)
		if err != nil {
			if !errors.Is(err, pakeerr.ErrInvalidParameter) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		out, err := r.MarshalBinary()
		if err != nil || string(out) != string(in) {
			t.Fatalf("record %x re-encodes as %x, %v", in, out, err)
		}
	})
}
