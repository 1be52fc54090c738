// Package srp implements SRP-6a, the augmented password-authenticated key
// exchange of Wu's Secure Remote Password protocol, with the arithmetic of
// RFC 5054 (§2.4-§2.6), the key confirmation of RFC 2945 §3, the groups of
// RFC 5054 Appendix A (1024 to 8192 bits) and the hash SHA-1 or SHA-256.
// DefaultParams is the 3072-bit group with SHA-256 in ProfileRFC5054.
//
// # Protocol
//
// H is the suite's hash, | concatenation, PAD(x) the big-endian encoding of
// x left-padded to the length of N (RFC 5054 §2.1), and enc(x) the encoding
// of x where it is hashed into M1, M2 and K, which the profile fixes (see
// below). I is the client's identity, P its password, both byte strings
// (the SASLprep of RFC 5054 §2.3 is the caller's business).
//
// Registration (Register, RFC 5054 §2.4); the server stores (I, s, v):
//
//	s = 16 random bytes, the first one not zero
//	x = H(s | H(I | ":" | P))
//	v = g^x % N
//
// Message 1, client → server: enc(A), at most as many bytes as N
// (ElementSize).
//
//	a = 32 random bytes;  A = g^a % N
//
// Message 2, server → client: len(s) | s | enc(B), one length byte, then
// the salt and at most ElementSize bytes.
//
//	abort if A % N = 0 (§2.5.4)
//	b = 32 random bytes;  k = H(N | PAD(g));  B = (k*v + g^b) % N
//	u = H(PAD(A) | PAD(B)), abort if u = 0
//	S = (A * v^u)^b % N;  K = H(enc(S))
//
// Message 3, client → server: M1, one hash.
//
//	abort if B % N = 0 (§2.5.3)
//	u = H(PAD(A) | PAD(B)), abort if u = 0
//	x = H(s | H(I | ":" | P))
//	S = (B - k*g^x)^(a + u*x) % N;  K = H(enc(S))
//	M1 = H(H(N) xor H(enc(g)) | H(I) | s | enc(A) | enc(B) | K)
//
// Message 4, server → client: M2, one hash.
//
//	abort unless M1 is the server's (ErrAuthFailed)
//	M2 = H(enc(A) | M1 | K); the server is done
//
// The client aborts unless M2 is the one it expects (ErrAuthFailed), and is
// done. The session key is K. The exponents a and b are 256 bits, the
// least RFC 5054 advises, for 128-bit security.
//
// # Profiles
//
// RFC 5054 fixes x, v, k, u and S, pads g, A and B where it hashes them
// (k, u), and leaves M1, M2 and K to RFC 2945 and to each implementation.
// Implementations therefore differ only in enc, and a Profile names the
// choice:
//
//   - ProfileRFC5054, the default: enc(g) = PAD(g), and enc(A), enc(B),
//     enc(S) are the minimal big-endian encodings (no leading zero byte).
//     This is what deployed SRP libraries compute: pysrp with
//     rfc5054_enable() (both its pure-Python and its OpenSSL backend), the
//     RustCrypto srp crate 0.7 with its defaults (Client::new,
//     Server::new), and Apple's HomeKit (SRP-6a 3072 SHA-512). The
//     interoperability tests in this package's interop_test.go run against
//     the first two.
//   - ProfilePadded, kexlab's earlier profile: enc(g) is g's one-byte
//     encoding, enc(A) = PAD(A), enc(B) = PAD(B), enc(S) = PAD(S). It
//     agrees with ProfileRFC5054's peers only when A, B and S all have a
//     non-zero top byte and never on M1 (about 3 exchanges in 256 fail
//     even with the g difference removed).
//
// A and B travel in the profile's encoding too, so that what kexlab sends
// is what its peers hash: the RustCrypto crate hashes the bytes of A and B
// it is given as they are. In ProfileRFC5054 messages 1 and 2 are
// therefore one byte shorter in about 1 exchange in 256.
//
// The salt is hashed as the byte string sent, in both profiles. Libraries
// that keep it as an integer (pysrp's OpenSSL backend, srptools) drop a
// leading zero byte of s; Register never draws such a salt, so records it
// makes work with every peer.
//
// # Hashing a secret of variable length
//
// ProfileRFC5054 hashes S without its leading zero bytes, so the length of
// the string hashed into K depends on the secret S: the channel of the
// Raccoon attack on TLS-DH, which measured the extra compression-function
// call when the length crossed a block boundary. Here it cannot cross one
// in practice: every RFC 5054 group's N is a multiple of 64 bytes, and
// SHA-1 and SHA-256 (64-byte blocks, at least 9 bytes of padding) need
// ElementSize/64 + 1 compression calls for any S with at most 8 leading
// zero bytes; S has 9 or more with probability about 2^-72. The number of
// leading zero bytes is counted without a branch or an index that depends
// on S (leadingZeros), so what remains is the hash's handling of a final
// partial block, whose length is ElementSize - z for z leading zero bytes
// (z = 0 in 255 of 256 exchanges). BenchmarkKeyHash times K for S with
// z = 0 and z = 1, interleaved, on thread CPU time. On the project's
// 2-core AMD EPYC machine type (go test -bench KeyHash -benchtime 4000x,
// n = 4000 batches of 64 per side) one K took 7 to 16 ns longer with z = 1
// (1.2 to 3.8 %; 2048 and 3072 bits, SHA-1 and SHA-256; Mann–Whitney
// p < 1e-6, Cliff's delta 0.38 to 0.60): measurable by code that times the
// hash itself, such as a co-located attacker. The server's whole step that
// computes S and K (message 1 to message 2) took a median of 0.75 ms with
// an interquartile range of 58 µs at 2048 bits, and 4.3 ms with 579 µs at
// 3072 bits (n = 201, thread CPU time): the difference is about 4,000
// times smaller than the step's own spread, so a remote attacker needs on
// the order of 10^7 exchanges to see one bit of it, and Raccoon needs that
// bit from many sessions. The profile accepts this residue as the price of
// interoperability, as its peers do (they also trim S in variable time).
// ProfilePadded hashes PAD(S) and has no such channel, at the price of
// interoperability.
//
// # Message flow
//
// This is SRP-6a's own order ("I, A" first, then "s, B", then M1 and M2;
// Wu's SRP design page), which fits an exchange where the client speaks
// first; RFC 5054 sends I in the TLS ClientHello and A only after B, which
// SRP-6a allows because u = H(A, B) commits to both values either way. I
// does not travel in message 1: the server needs (s, v) before it can
// answer, so the application's request that selects the record carries I,
// and both NewClient and NewServer take it. The salt is framed as in
// RFC 5054 §2.8.2 (opaque srp_s<1..2^8-1>); B is the rest of message 2. A
// and B are sent in the profile's encoding (above); what a party receives
// may be any encoding of 1 to ElementSize bytes, leading zero bytes or
// not, and is read as an integer: 0, a value not below N, or a longer
// encoding is rejected with ErrInvalidMessage. Verifiers are read the same
// way (ParseRecord, NewServer): other libraries store them without leading
// zero bytes.
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

// Profile is how the integers hashed into M1, M2 and K are encoded (see
// the package documentation).
type Profile int

const (
	// ProfileRFC5054 hashes H(PAD(g)) and the minimal encodings of A, B and
	// S, as pysrp (RFC 5054 mode), the RustCrypto srp crate and HomeKit do.
	ProfileRFC5054 Profile = iota
	// ProfilePadded hashes H(g) over g's one-byte encoding and PAD(A),
	// PAD(B) and PAD(S): kexlab's profile before ProfileRFC5054.
	ProfilePadded
)

// String returns "rfc5054" or "padded".
func (pr Profile) String() string {
	switch pr {
	case ProfileRFC5054:
		return "rfc5054"
	case ProfilePadded:
		return "padded"
	}
	return fmt.Sprintf("Profile(%d)", int(pr))
}

// Params is an SRP-6a parameter set: an RFC 5054 group, a hash and a
// profile. It is immutable and safe for concurrent use.
type Params struct {
	group   *modp.Group
	hash    crypto.Hash
	profile Profile
	newHash func() hash.Hash
	k       *modp.Element // k = H(N | PAD(g)) (RFC 5054 §2.5.3)
	hNg     []byte        // H(N) xor H(enc(g)) (RFC 2945 §3)
}

// NewParams returns the parameter set of the RFC 5054 Appendix A group of
// the given size (1024, 1536, 2048, 3072, 4096, 6144 or 8192 bits) with
// crypto.SHA1 or crypto.SHA256, in ProfileRFC5054.
func NewParams(bits int, h crypto.Hash) (*Params, error) {
	return NewProfileParams(bits, h, ProfileRFC5054)
}

// NewProfileParams is NewParams with the given profile.
func NewProfileParams(bits int, h crypto.Hash, profile Profile) (*Params, error) {
	g, err := modp.RFC5054Group(bits)
	if err != nil {
		return nil, err
	}
	p := &Params{group: g, hash: h, profile: profile}
	switch h {
	case crypto.SHA1:
		p.newHash = sha1.New
	case crypto.SHA256:
		p.newHash = sha256.New
	default:
		return nil, fmt.Errorf("%w: srp: hash %v", pakeerr.ErrInvalidParameter, h)
	}
	padG := g.Generator().Bytes()
	p.k = g.Reduce(p.h(g.P(), padG))
	var hN, hg []byte
	switch profile {
	case ProfileRFC5054:
		hN, hg = p.h(g.P()), p.h(padG)
	case ProfilePadded:
		hN, hg = p.h(g.P()), p.h(g.G())
	default:
		return nil, fmt.Errorf("%w: srp: %v", pakeerr.ErrInvalidParameter, profile)
	}
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

// DefaultParams returns the 3072-bit group with SHA-256 in ProfileRFC5054.
func DefaultParams() *Params { return defaultParams() }

// Name returns the suite's name, e.g. "SRP-6a 3072 SHA-256", with
// " padded" appended in ProfilePadded.
func (p *Params) Name() string {
	name := fmt.Sprintf("SRP-6a %d %s", p.group.BitLen(), p.hash)
	if p.profile == ProfilePadded {
		name += " padded"
	}
	return name
}

// Profile returns the parameter set's profile.
func (p *Params) Profile() Profile { return p.profile }

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

// parseElement reads an element sent or stored as a big-endian integer of
// 1 to ElementSize bytes and returns it with its PAD encoding. It rejects
// longer encodings, 0 and values not below N with an error wrapping
// pakeerr.ErrInvalidMessage.
func (p *Params) parseElement(b []byte) (*modp.Element, []byte, error) {
	size := p.ElementSize()
	if len(b) > size {
		return nil, nil, fmt.Errorf("%w: srp: element of %d bytes, want at most %d", pakeerr.ErrInvalidMessage, len(b), size)
	}
	padded := b
	if len(b) < size {
		padded = make([]byte, size)
		copy(padded[size-len(b):], b)
	}
	x, err := p.group.ParseElement(padded)
	if err != nil {
		return nil, nil, err
	}
	return x, padded, nil
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

// confirmation returns K = H(enc(S)), M1 = H(H(N) xor H(enc(g)) | H(I) |
// s | enc(A) | enc(B) | K) and M2 = H(enc(A) | M1 | K) (RFC 2945 §3 with
// SRP-6a's K = H(S)) from PAD(A), PAD(B) and PAD(S).
func (p *Params) confirmation(identity, salt, A, B, S []byte) (K, M1, M2 []byte) {
	A, B = p.public(A), p.public(B)
	K = p.sessionKey(S)
	M1 = p.h(p.hNg, p.h(identity), salt, A, B, K)
	M2 = p.h(A, M1, K)
	return K, M1, M2
}

// sessionKey returns K = H(enc(S)) from PAD(S). In ProfileRFC5054 the
// leading zero bytes of the secret S are counted in constant time; the
// hash's work then depends on their number (see the package doc).
func (p *Params) sessionKey(S []byte) []byte {
	if p.profile == ProfileRFC5054 {
		S = S[leadingZeros(S):]
	}
	return p.h(S)
}

// public returns enc(x) for a public value x given as PAD(x): x itself in
// ProfilePadded, x without its leading zero bytes (in variable time) in
// ProfileRFC5054. It is also how A and B are sent.
func (p *Params) public(x []byte) []byte {
	if p.profile == ProfileRFC5054 {
		return bytes.TrimLeft(x, "\x00")
	}
	return x
}

// leadingZeros returns the number of leading zero bytes of b with no
// branch or memory index that depends on b's contents.
func leadingZeros(b []byte) int {
	n, seen := 0, 0 // seen becomes 1 at the first non-zero byte
	for _, c := range b {
		seen |= subtle.ConstantTimeByteEq(c, 0) ^ 1
		n += seen ^ 1
	}
	return n
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
