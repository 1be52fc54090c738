// Package srp implements SRP-6a, the augmented password-authenticated key
// exchange of Wu's Secure Remote Password protocol, with the arithmetic of
// RFC 5054 (§2.4-§2.6), the key confirmation of RFC 2945 §3, the groups of
// RFC 5054 Appendix A (1024 to 8192 bits) and the hash SHA-1 or SHA-256.
// DefaultParams is the 3072-bit group with SHA-256.
//
// # Protocol
//
// H is the suite's hash, | concatenation, PAD(x) the big-endian encoding of
// x left-padded to the length of N (RFC 5054 §2.1). I is the client's
// identity, P its password, both byte strings (the SASLprep of RFC 5054
// §2.3 is the caller's business).
//
// Registration (Register, RFC 5054 §2.4); the server stores (I, s, v):
//
//	s = 16 random bytes
//	x = H(s | H(I | ":" | P))
//	v = g^x % N
//
// Message 1, client → server: PAD(A), as many bytes as N (ElementSize).
//
//	a = 32 random bytes;  A = g^a % N
//
// Message 2, server → client: len(s) | s | PAD(B), one length byte, then
// the salt and ElementSize bytes.
//
//	abort unless PAD(A) has the length of N and A % N != 0 (§2.5.4)
//	b = 32 random bytes;  k = H(N | PAD(g));  B = (k*v + g^b) % N
//	u = H(PAD(A) | PAD(B)), abort if u = 0
//	S = (A * v^u)^b % N;  K = H(PAD(S))
//
// Message 3, client → server: M1, one hash.
//
//	abort unless PAD(B) has the length of N and B % N != 0 (§2.5.3)
//	u = H(PAD(A) | PAD(B)), abort if u = 0
//	x = H(s | H(I | ":" | P))
//	S = (B - k*g^x)^(a + u*x) % N;  K = H(PAD(S))
//	M1 = H(H(N) xor H(g) | H(I) | s | PAD(A) | PAD(B) | K)
//
// Message 4, server → client: M2, one hash.
//
//	abort unless M1 is the server's (ErrAuthFailed)
//	M2 = H(PAD(A) | M1 | K); the server is done
//
// The client aborts unless M2 is the one it expects (ErrAuthFailed), and is
// done. The session key is K. The exponents a and b are 256 bits, the
// least RFC 5054 advises, for 128-bit security.
//
// # Message flow
//
// This is SRP-6a's own order ("I, A" first, then "s, B", then M1 and M2;
// Wu's SRP design page), which fits an exchange where the client speaks
// first; RFC 5054 sends I in the TLS ClientHello and A only after B, which
// SRP-6a allows because u = H(A, B) commits to both values either way. I
// does not travel in message 1: the server needs (s, v) before it can
// answer, so the application's request that selects the record carries I,
// and both NewClient and NewServer take it. Every message then has a fixed
// length for a given group, hash and salt length. The salt is framed as in
// RFC 5054 §2.8.2 (opaque srp_s<1..2^8-1>); A and B are PAD-encoded, so a
// longer or shorter A or B, including the encodings of N or 2N, is
// rejected with ErrInvalidMessage, as is A or B equal to 0 (mod N).
//
// # Encoding inside the hashes
//
// RFC 5054 pads A, B and g where it hashes them (k, u) and defines no
// M1, M2 or K. The shared vectors (srptools) hash H(g) over g's one-byte
// encoding and every other integer in its minimal big-endian form;
// PAD(A), PAD(B) and PAD(S) equal those minimal forms whenever the value's
// top byte is non-zero, which holds for every vector. This package always
// uses the fixed-length PAD form, so that the time spent hashing the secret
// S does not depend on its leading zero bytes (the Raccoon attack on TLS
// DH). It therefore disagrees with srptools in the runs (about 2^-8 each)
// where S, A or B is below 2^(8*(ElementSize-1)), and where srptools, which
// turns every hash into an integer, drops a leading zero byte of H(I),
// H(N) xor H(g) or s.
//
// # Constant time
//
// Secret exponents (x, a, b and a + u*x) only meet modp's constant-time
// arithmetic (filippo.io/bigmod); a + u*x is formed by
// modp.ExponentMulAdd over the integers. M1 and M2 are compared with
// crypto/subtle.
package srp

import (
	"bytes"
	"crypto"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"hash"
	"sync"

	"github.com/kexlab/kexlab/internal/group/modp"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// SaltSize is the length of the salts Register draws.
const SaltSize = 16

// Params is an SRP-6a parameter set: an RFC 5054 group and a hash. It is
// immutable and safe for concurrent use.
type Params struct {
	group   *modp.Group
	hash    crypto.Hash
	newHash func() hash.Hash
	k       *modp.Element // k = H(N | PAD(g)) (RFC 5054 §2.5.3)
	hNg     []byte        // H(N) xor H(g) (RFC 2945 §3)
}

// NewParams returns the parameter set of the RFC 5054 Appendix A group of
// the given size (1024, 1536, 2048, 3072, 4096, 6144 or 8192 bits) with
// crypto.SHA1 or crypto.SHA256.
func NewParams(bits int, h crypto.Hash) (*Params, error) {
	g, err := modp.RFC5054Group(bits)
	if err != nil {
		return nil, err
	}
	p := &Params{group: g, hash: h}
	switch h {
	case crypto.SHA1:
		p.newHash = sha1.New
	case crypto.SHA256:
		p.newHash = sha256.New
	default:
		return nil, fmt.Errorf("%w: srp: hash %v", pakeerr.ErrInvalidParameter, h)
	}
	p.k = g.Reduce(p.h(g.P(), g.Generator().Bytes()))
	hN, hg := p.h(g.P()), p.h(g.G())
	subtle.XORBytes(hN, hN, hg)
	p.hNg = hN
	return p, nil
}

var defaultParams = sync.OnceValue(func() *Params {
	p, err := NewParams(3072, crypto.SHA256)
	if err != nil {
		panic("srp: " + err.Error())
	}
	return p
})

// DefaultParams returns the 3072-bit group with SHA-256.
func DefaultParams() *Params { return defaultParams() }

// Name returns the suite's name, e.g. "SRP-6a 3072 SHA-256".
func (p *Params) Name() string {
	return fmt.Sprintf("SRP-6a %d %s", p.group.BitLen(), p.hash)
}

// Group returns the MODP group.
func (p *Params) Group() *modp.Group { return p.group }

// Hash returns the hash function.
func (p *Params) Hash() crypto.Hash { return p.hash }

// ElementSize is the length of PAD(A), PAD(B) and PAD(v): that of N.
func (p *Params) ElementSize() int { return p.group.Size() }

// HashSize is the length of M1, M2 and the session key K.
func (p *Params) HashSize() int { return p.hash.Size() }

// h returns H(parts[0] | parts[1] | ...).
func (p *Params) h(parts ...[]byte) []byte {
	d := p.newHash()
	for _, b := range parts {
		d.Write(b)
	}
	return d.Sum(nil)
}

// identityHash returns H(I | ":" | P), the inner hash of x.
func (p *Params) identityHash(identity, password []byte) []byte {
	return p.h(identity, []byte(":"), password)
}

// x returns x = H(s | H(I | ":" | P)) from the inner hash (RFC 5054 §2.4).
func (p *Params) x(salt, inner []byte) []byte { return p.h(salt, inner) }

// Verifier returns PAD(v), v = g^x % N with x = H(s | H(I | ":" | P))
// (RFC 5054 §2.4). The password must not be empty and the salt must be
// 1 to 255 bytes long (the length the wire can carry).
func (p *Params) Verifier(identity, password, salt []byte) ([]byte, error) {
	if len(password) == 0 {
		return nil, errEmptyPassword
	}
	if err := checkSalt(salt); err != nil {
		return nil, err
	}
	inner := p.identityHash(identity, password)
	x := p.x(salt, inner)
	defer clear(inner)
	defer clear(x)
	return p.group.ExpBase(x).Bytes(), nil
}

var (
	errEmptyPassword = fmt.Errorf("%w: srp: empty password", pakeerr.ErrInvalidParameter)
	errNoParams      = fmt.Errorf("%w: srp: no parameters", pakeerr.ErrInvalidParameter)
)

func checkSalt(salt []byte) error {
	if len(salt) == 0 || len(salt) > 255 {
		return fmt.Errorf("%w: srp: salt of %d bytes, want 1 to 255", pakeerr.ErrInvalidParameter, len(salt))
	}
	return nil
}

// u returns u = H(PAD(A) | PAD(B)) (RFC 5054 §2.6), or an error wrapping
// pakeerr.ErrInvalidMessage if it is zero.
func (p *Params) u(A, B []byte) ([]byte, error) {
	u := p.h(A, B)
	if err := checkU(u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkU rejects u = 0, with which S would not depend on the password.
func checkU(u []byte) error {
	if subtle.ConstantTimeCompare(u, make([]byte, len(u))) == 1 {
		return fmt.Errorf("%w: srp: u = 0", pakeerr.ErrInvalidMessage)
	}
	return nil
}

// clientSecret returns PAD(S), S = (B - k*g^x)^(a + u*x) % N (RFC 5054 §2.6).
func (p *Params) clientSecret(B *modp.Element, x, a, u []byte) []byte {
	g := p.group
	base := g.Sub(B, g.Mul(p.k, g.ExpBase(x)))
	e := modp.ExponentMulAdd(u, x, a)
	defer clear(e)
	return g.Exp(base, e).Bytes()
}

// serverSecret returns PAD(S), S = (A * v^u)^b % N (RFC 5054 §2.6).
func (p *Params) serverSecret(A, v *modp.Element, b, u []byte) []byte {
	g := p.group
	return g.Exp(g.Mul(A, g.Exp(v, u)), b).Bytes()
}

// publicB returns B = (k*v + g^b) % N (RFC 5054 §2.5.3).
func (p *Params) publicB(v *modp.Element, b []byte) *modp.Element {
	g := p.group
	return g.Add(g.Mul(p.k, v), g.ExpBase(b))
}

// confirmation returns K = H(PAD(S)), M1 = H(H(N) xor H(g) | H(I) | s |
// PAD(A) | PAD(B) | K) and M2 = H(PAD(A) | M1 | K) (RFC 2945 §3 with
// SRP-6a's K = H(S)).
func (p *Params) confirmation(identity, salt, A, B, S []byte) (K, M1, M2 []byte) {
	K = p.h(S)
	M1 = p.h(p.hNg, p.h(identity), salt, A, B, K)
	M2 = p.h(A, M1, K)
	return K, M1, M2
}

// state is where a party is in its exchange.
type state int

const (
	stateStart state = iota
	stateSent
	stateConfirm
	stateDone
	stateFailed
)

// party is the state both sides keep.
type party struct {
	state state
	key   []byte // K
}

// finished returns the error of Next once a party is done or has failed.
func (pt *party) finished() error {
	if pt.state == stateDone {
		return fmt.Errorf("%w: srp: party has finished", pakeerr.ErrState)
	}
	return fmt.Errorf("%w: srp: party failed earlier", pakeerr.ErrState)
}

// Done reports whether the party has confirmed the peer's key.
func (pt *party) Done() bool { return pt.state == stateDone }

// SessionKey returns K = H(PAD(S)) once Done, and an error wrapping
// pakeerr.ErrState before.
func (pt *party) SessionKey() ([]byte, error) {
	if pt.state != stateDone {
		return nil, fmt.Errorf("%w: srp: no session key yet", pakeerr.ErrState)
	}
	return bytes.Clone(pt.key), nil
}
