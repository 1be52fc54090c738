package srp

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"math/big"
	"reflect"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

var (
	testID = []byte("alice")
	testPW = []byte("password123")
)

// detReader is a deterministic randomness source (SHA-1 in counter mode).
type detReader struct {
	seed uint64
	n    uint32
	buf  []byte
}

func (r *detReader) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) {
		var in [12]byte
		binary.BigEndian.PutUint64(in[:], r.seed)
		binary.BigEndian.PutUint32(in[8:], r.n)
		r.n++
		h := sha1.Sum(in[:])
		r.buf = append(r.buf, h[:]...)
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// exchange runs a whole exchange and returns the four messages.
func exchange(t *testing.T, p *Params, rec *Record, pw []byte, cr, sr *detReader) (msgs [4][]byte, c *Client, s *Server, err error) {
	t.Helper()
	c, err = NewClient(cr, p, testID, pw)
	if err != nil {
		t.Fatal(err)
	}
	s, err = NewServer(sr, p, testID, rec)
	if err != nil {
		t.Fatal(err)
	}
	var in []byte
	for i := 0; i < 4; i++ {
		var party interface{ Next([]byte) ([]byte, error) } = c
		if i%2 == 1 {
			party = s
		}
		if in, err = party.Next(in); err != nil {
			return msgs, c, s, err
		}
		msgs[i] = in
	}
	if out, err := c.Next(in); out != nil || err != nil {
		t.Fatalf("client's last Next = %x, %v", out, err)
	}
	return msgs, c, s, nil
}

func testParams(t *testing.T) (*Params, *Record) {
	t.Helper()
	p, err := NewParams(1024, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Register(rand.Reader, p, testID, testPW)
	if err != nil {
		t.Fatal(err)
	}
	return p, rec
}

func TestHonestDefault(t *testing.T) {
	p := DefaultParams()
	if p.Name() != "SRP-6a 3072 SHA-256" || p.ElementSize() != 384 || p.HashSize() != 32 {
		t.Fatalf("DefaultParams: %s, %d, %d", p.Name(), p.ElementSize(), p.HashSize())
	}
	rec, err := Register(rand.Reader, p, testID, testPW)
	if err != nil {
		t.Fatal(err)
	}
	msgs, c, s, err := exchange(t, p, rec, testPW, &detReader{seed: 1}, &detReader{seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{384, 1 + SaltSize + 384, 32, 32} {
		if len(msgs[i]) != n {
			t.Errorf("message %d: %d bytes, want %d", i+1, len(msgs[i]), n)
		}
	}
	kc, err1 := c.SessionKey()
	ks, err2 := s.SessionKey()
	if err1 != nil || err2 != nil || !bytes.Equal(kc, ks) || len(kc) != 32 {
		t.Fatalf("keys %x, %x (%v, %v)", kc, ks, err1, err2)
	}
}

func TestWrongPassword(t *testing.T) {
	p, rec := testParams(t)
	msgs, c, s, err := exchange(t, p, rec, []byte("password124"), &detReader{seed: 3}, &detReader{seed: 4})
	if !errors.Is(err, pakeerr.ErrAuthFailed) || msgs[2] == nil || msgs[3] != nil {
		t.Fatalf("wrong password: %v after messages %x", err, msgs)
	}
	if _, err := s.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("server has a key: %v", err)
	}
	if _, err := s.Next(msgs[2]); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("failed server reused: %v", err)
	}
	if _, err := c.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("client has a key: %v", err)
	}
}

// TestBadM2 checks that the client refuses a wrong M2.
func TestBadM2(t *testing.T) {
	p, rec := testParams(t)
	c, _ := NewClient(rand.Reader, p, testID, testPW)
	s, _ := NewServer(rand.Reader, p, testID, rec)
	m1, _ := c.Next(nil)
	m2, _ := s.Next(m1)
	m3, _ := c.Next(m2)
	m4, err := s.Next(m3)
	if err != nil {
		t.Fatal(err)
	}
	m4[5] ^= 1
	if _, err := c.Next(m4); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Fatalf("tampered M2: %v", err)
	}
	if c.Done() {
		t.Fatal("client done after a wrong M2")
	}
}

// badElements returns encodings that must be refused as A or B: 0, N,
// N+1, 2N and N and 1 in more than ElementSize bytes, and no bytes at all.
func badElements(p *Params) map[string][]byte {
	N := bigOf(p.group.P())
	size := p.ElementSize()
	return map[string][]byte{
		"zero":          make([]byte, size),
		"N":             pad(N, size),
		"N+1":           pad(new(big.Int).Add(N, big.NewInt(1)), size),
		"2N (long)":     pad(new(big.Int).Lsh(N, 1), size+1),
		"N (long)":      pad(N, size+1),
		"1 (long)":      pad(big.NewInt(1), size+1),
		"empty":         {},
		"all ones (FF)": bytes.Repeat([]byte{0xff}, size),
	}
}

func TestInvalidA(t *testing.T) {
	p, rec := testParams(t)
	for name, A := range badElements(p) {
		s, err := NewServer(rand.Reader, p, testID, rec)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := s.Next(A); !errors.Is(err, pakeerr.ErrInvalidMessage) || out != nil {
			t.Errorf("A = %s: %x, %v; want ErrInvalidMessage", name, out, err)
		}
		if _, err := s.Next(A); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("A = %s: server reused after failure: %v", name, err)
		}
	}
	s, _ := NewServer(rand.Reader, p, testID, rec)
	if _, err := s.Next(nil); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("server.Next(nil): %v", err)
	}
}

func TestInvalidMessage2(t *testing.T) {
	p, rec := testParams(t)
	salt := rec.Salt
	cases := map[string][]byte{}
	for name, B := range badElements(p) {
		cases["B = "+name] = append(append([]byte{byte(len(salt))}, salt...), B...)
	}
	good := append(append([]byte{byte(len(salt))}, salt...), bytes.Repeat([]byte{7}, p.ElementSize())...)
	cases["empty salt"] = append([]byte{0}, good[1+len(salt):]...)
	cases["salt length past the end"] = append([]byte{byte(len(good) - 1)}, good[1:]...)
	cases["salt length too short"] = append([]byte{byte(len(salt) - 1)}, good[1:]...)
	cases["one byte"] = []byte{1}
	for name, m := range cases {
		c, err := NewClient(rand.Reader, p, testID, testPW)
		if err != nil {
			t.Fatal(err)
		}
		c.Next(nil)
		if out, err := c.Next(m); !errors.Is(err, pakeerr.ErrInvalidMessage) || out != nil {
			t.Errorf("%s: %x, %v; want ErrInvalidMessage", name, out, err)
		}
		if _, err := c.Next(m); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("%s: client reused after failure: %v", name, err)
		}
	}
	// The well-formed message with B = 7 is accepted (it leads to a wrong M1).
	c, _ := NewClient(rand.Reader, p, testID, testPW)
	c.Next(nil)
	if _, err := c.Next(good); err != nil {
		t.Errorf("B = 7: %v", err)
	}
}

func TestCheckU(t *testing.T) {
	if err := checkU(make([]byte, 32)); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("u = 0: %v", err)
	}
	if err := checkU(append(make([]byte, 31), 1)); err != nil {
		t.Errorf("u = 1: %v", err)
	}
}

// TestTamper flips a bit in each byte position of each message and cuts
// each short: the exchange must fail with a typed error.
func TestTamper(t *testing.T) {
	p, rec := testParams(t)
	msgs, _, _, err := exchange(t, p, rec, testPW, &detReader{seed: 5}, &detReader{seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	for i := range msgs {
		for _, mutate := range []func([]byte) []byte{
			func(m []byte) []byte { m[0] ^= 0x80; return m },
			func(m []byte) []byte { m[len(m)/2] ^= 1; return m },
			func(m []byte) []byte { m[len(m)-1] ^= 1; return m },
			func(m []byte) []byte { return m[:len(m)-1] },
			func(m []byte) []byte { return append(m, 0) },
		} {
			c, _ := NewClient(&detReader{seed: 5}, p, testID, testPW)
			s, _ := NewServer(&detReader{seed: 6}, p, testID, rec)
			var in []byte
			var err error
			for j := 0; j < 4 && err == nil; j++ {
				var party interface{ Next([]byte) ([]byte, error) } = c
				if j%2 == 1 {
					party = s
				}
				in, err = party.Next(in)
				if j == i && err == nil {
					in = mutate(bytes.Clone(in))
				}
			}
			if err == nil {
				_, err = c.Next(in)
			}
			if !errors.Is(err, pakeerr.ErrInvalidMessage) && !errors.Is(err, pakeerr.ErrAuthFailed) {
				t.Errorf("message %d tampered: %v", i+1, err)
			}
		}
	}
}

func TestState(t *testing.T) {
	p, rec := testParams(t)
	c, _ := NewClient(rand.Reader, p, testID, testPW)
	if _, err := c.SessionKey(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("client key before the run: %v", err)
	}
	if _, err := c.Next([]byte{1}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("client first Next with input: %v", err)
	}
	msgs, c, s, err := exchange(t, p, rec, testPW, &detReader{seed: 7}, &detReader{seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	for i, party := range []interface{ Next([]byte) ([]byte, error) }{c, s} {
		if _, err := party.Next(msgs[3]); !errors.Is(err, pakeerr.ErrState) {
			t.Errorf("party %d after the end: %v", i, err)
		}
	}
	// The server refuses message 1 in place of M1.
	s, _ = NewServer(rand.Reader, p, testID, rec)
	if _, err := s.Next(msgs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(msgs[0]); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("message 1 replayed: %v", err)
	}
}

func TestParams(t *testing.T) {
	for _, bits := range []int{1024, 1536, 2048, 3072, 4096, 6144, 8192} {
		for _, h := range []crypto.Hash{crypto.SHA1, crypto.SHA256} {
			p, err := NewParams(bits, h)
			if err != nil || p.Group().BitLen() != bits || p.Hash() != h {
				t.Errorf("NewParams(%d, %v): %v", bits, h, err)
			}
		}
	}
	for _, c := range []struct {
		bits int
		h    crypto.Hash
	}{{1000, crypto.SHA256}, {2048, crypto.SHA512}, {2048, crypto.MD5}} {
		if _, err := NewParams(c.bits, c.h); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("NewParams(%d, %v): %v", c.bits, c.h, err)
		}
	}
}

func TestRecord(t *testing.T) {
	p, rec := testParams(t)
	b, err := rec.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1+SaltSize+p.ElementSize() {
		t.Fatalf("record of %d bytes", len(b))
	}
	got, err := ParseRecord(p, b)
	if err != nil || !reflect.DeepEqual(got, rec) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	N := pad(bigOf(p.group.P()), p.ElementSize())
	bad := map[string][]byte{
		"empty":       {},
		"empty salt":  append([]byte{0}, rec.Verifier...),
		"v = 0":       append(b[:1+SaltSize:1+SaltSize], make([]byte, p.ElementSize())...),
		"v = N":       append(b[:1+SaltSize:1+SaltSize], N...),
		"no verifier": b[:1+SaltSize],
		"long":        append(bytes.Clone(b), 0),
		"salt length": append([]byte{byte(len(b) - 1)}, b[1:]...),
	}
	for name, r := range bad {
		if _, err := ParseRecord(p, r); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := NewServer(rand.Reader, p, testID, &Record{Verifier: rec.Verifier}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("NewServer with no salt: %v", err)
	}
	if _, err := NewServer(rand.Reader, p, testID, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("NewServer with no record: %v", err)
	}
	if _, err := Register(rand.Reader, p, testID, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Register with no password: %v", err)
	}
	if _, err := NewClient(rand.Reader, p, testID, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("NewClient with no password: %v", err)
	}
	if _, err := Register(bytes.NewReader(nil), p, testID, testPW); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("Register with a failing reader: %v", err)
	}
	if _, err := NewClient(bytes.NewReader(nil), p, testID, testPW); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("NewClient with a failing reader: %v", err)
	}
}

// TestOtherEncodings sends A, B and v in the encoding the profile does not
// send (PAD in ProfileRFC5054, minimal in ProfilePadded), as other SRP
// libraries may: every exchange must succeed with the same messages and
// keys, including runs where A or B is below 2^(8*(ElementSize-1)).
func TestOtherEncodings(t *testing.T) {
	for _, pr := range []Profile{ProfileRFC5054, ProfilePadded} {
		p, err := NewProfileParams(1024, crypto.SHA256, pr)
		if err != nil {
			t.Fatal(err)
		}
		size := p.ElementSize()
		other := func(x []byte) []byte { return bytes.TrimLeft(x, "\x00") }
		if pr == ProfileRFC5054 {
			other = func(x []byte) []byte { return pad(bigOf(x), size) }
		}
		rec, err := Register(rand.Reader, p, testID, testPW)
		if err != nil {
			t.Fatal(err)
		}
		alt := &Record{Salt: rec.Salt, Verifier: other(rec.Verifier)}
		var shortA, shortB bool
		for seed := uint64(0); seed < 3000 && !(shortA && shortB && seed >= 20); seed++ {
			want, _, _, err := exchange(t, p, rec, testPW, &detReader{seed: seed}, &detReader{seed: seed + 1<<32})
			if err != nil {
				t.Fatal(err)
			}
			c, err1 := NewClient(&detReader{seed: seed}, p, testID, testPW)
			s, err2 := NewServer(&detReader{seed: seed + 1<<32}, p, testID, alt)
			if err := errors.Join(err1, err2); err != nil {
				t.Fatal(err)
			}
			m1, _ := c.Next(nil)
			m2, err := s.Next(other(m1))
			if err != nil {
				t.Fatalf("%v seed %d: A in the other encoding: %v", pr, seed, err)
			}
			B := m2[1+len(rec.Salt):]
			m3, err := c.Next(append(bytes.Clone(m2[:1+len(rec.Salt)]), other(B)...))
			if err != nil {
				t.Fatalf("%v seed %d: B in the other encoding: %v", pr, seed, err)
			}
			m4, err := s.Next(m3)
			if err != nil {
				t.Fatalf("%v seed %d: %v", pr, seed, err)
			}
			if _, err := c.Next(m4); err != nil {
				t.Fatalf("%v seed %d: %v", pr, seed, err)
			}
			if !bytes.Equal(m1, want[0]) || !bytes.Equal(m2, want[1]) || !bytes.Equal(m3, want[2]) || !bytes.Equal(m4, want[3]) {
				t.Fatalf("%v seed %d: the other encodings changed the exchange", pr, seed)
			}
			shortA = shortA || len(bytes.TrimLeft(m1, "\x00")) < size
			shortB = shortB || len(bytes.TrimLeft(B, "\x00")) < size
		}
		if !shortA || !shortB {
			t.Errorf("%v: no run with a short A (%v) or B (%v)", pr, shortA, shortB)
		}
	}
}

func TestProfile(t *testing.T) {
	for _, c := range []struct {
		pr   Profile
		name string
	}{{ProfileRFC5054, "SRP-6a 2048 SHA-256"}, {ProfilePadded, "SRP-6a 2048 SHA-256 padded"}} {
		p, err := NewProfileParams(2048, crypto.SHA256, c.pr)
		if err != nil || p.Name() != c.name || p.Profile() != c.pr {
			t.Errorf("%v: %v, %v", c.pr, p.Name(), err)
		}
	}
	if p, _ := NewParams(2048, crypto.SHA1); p.Profile() != ProfileRFC5054 || DefaultParams().Profile() != ProfileRFC5054 {
		t.Error("the default profile is not ProfileRFC5054")
	}
	if _, err := NewProfileParams(2048, crypto.SHA256, Profile(7)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("unknown profile: %v", err)
	}
	for _, b := range [][]byte{{}, {0}, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {0, 1, 0, 0}, bytes.Repeat([]byte{0}, 384)} {
		if got, want := leadingZeros(b), len(b)-len(bytes.TrimLeft(b, "\x00")); got != want {
			t.Errorf("leadingZeros(%x) = %d, want %d", b, got, want)
		}
	}
}

// TestRegisterSalt: Register takes one salt from the reader and makes a
// zero first byte 1 (a reader of zeros, broken or replayed, must not make
// it loop); a short reader is ErrRandom.
func TestRegisterSalt(t *testing.T) {
	p, _ := NewParams(1024, crypto.SHA256)
	draw := bytes.Repeat([]byte{5}, SaltSize)
	rec, err := Register(bytes.NewReader(draw), p, testID, testPW)
	if err != nil || !bytes.Equal(rec.Salt, draw) {
		t.Fatalf("salt %x, %v; want %x", rec.Salt, err, draw)
	}
	rec, err = Register(bytes.NewReader(make([]byte, 4*SaltSize)), p, testID, testPW)
	if err != nil || rec.Salt[0] != 1 || !bytes.Equal(rec.Salt[1:], make([]byte, SaltSize-1)) {
		t.Errorf("salt from zeros %x, %v; want 01 then zeros", rec.Salt, err)
	}
	if _, err := Register(bytes.NewReader(draw[:SaltSize-1]), p, testID, testPW); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("short reader: %v", err)
	}
}

// TestNilRandom: a nil reader means crypto/rand everywhere, Unavoidable
// included.
func TestNilRandom(t *testing.T) {
	p, _ := NewParams(1024, crypto.SHA256)
	if f, err := Unavoidable(nil, p); err != nil || f.Online() != nil {
		t.Errorf("Unavoidable(nil, p): %v", err)
	}
	if _, err := Unavoidable(nil, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("Unavoidable with no parameters: %v", err)
	}
}

// TestResumeServer finishes an exchange on a server restored from
// MarshalBinary, and refuses states of the wrong phase or length.
func TestResumeServer(t *testing.T) {
	p, rec := testParams(t)
	c, _ := NewClient(nil, p, testID, testPW)
	s, _ := NewServer(nil, p, testID, rec)
	if _, err := s.MarshalBinary(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("MarshalBinary before message 1: %v", err)
	}
	m1, _ := c.Next(nil)
	m2, err := s.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	state, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ResumeServer(p, state)
	if err != nil {
		t.Fatal(err)
	}
	m3, _ := c.Next(m2)
	m4, err := r.Next(m3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(m4); err != nil {
		t.Fatal(err)
	}
	kc, _ := c.SessionKey()
	ks, _ := r.SessionKey()
	if !bytes.Equal(kc, ks) {
		t.Fatal("keys differ after resuming")
	}
	if _, err := r.MarshalBinary(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("MarshalBinary when done: %v", err)
	}
	if _, err := ResumeServer(p, state[1:]); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("short state: %v", err)
	}
}

// TestSetPassword: a client whose password comes after message 1 agrees
// with one made with it; the password is set once, before message 2.
func TestSetPassword(t *testing.T) {
	p, rec := testParams(t)
	c, err := NewClientWithoutPassword(nil, p, testID)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewServer(nil, p, testID, rec)
	m1, _ := c.Next(nil)
	m2, err := s.Next(m1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetPassword(nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("empty password: %v", err)
	}
	if err := c.SetPassword(testPW); err != nil {
		t.Fatal(err)
	}
	if err := c.SetPassword(testPW); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("second SetPassword: %v", err)
	}
	m3, err := c.Next(m2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(m3); err != nil {
		t.Fatal(err)
	}
	// Without a password, message 2 fails with ErrState.
	c2, _ := NewClientWithoutPassword(nil, p, testID)
	c2.Next(nil)
	if _, err := c2.Next(m2); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("message 2 without a password: %v", err)
	}
}
