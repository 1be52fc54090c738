// Package spake2plus implements SPAKE2+, the augmented password-authenticated
// key exchange of RFC 9383, with the ciphersuite
// P256-SHA256-HKDF-SHA256-HMAC-SHA256 (RFC 9383, Section 4): the group P-256
// with the RFC's points M and N, SHA-256 as Hash, HKDF-SHA256 as KDF and
// HMAC-SHA256 as MAC.
//
// # Roles and registration
//
// The prover knows the password; the verifier holds only the registration
// record (w0, L). Register (RFC 9383, Section 3.2) derives
//
//	w0s || w1s = PBKDF(len(pw) || pw || len(idProver) || idProver ||
//	                   len(idVerifier) || idVerifier)
//	w0 = w0s mod p,  w1 = w1s mod p,  L = w1*P
//
// with 40-byte halves (ceil(log2(p)) + 64 bits), so that the reduction modulo
// the group order p has bias below 2^-64. The PBKDF is a parameter; Scrypt
// gives the RFC's recommended scrypt (N=32768, r=8, p=1) with a salt.
//
// The prover must use the same salt as registration did. This package
// supports any salt the application distributes (the record stores it), and
// offers IdentitySalt, a salt derived from the two identities, which the
// prover can compute without an extra message: that is what kexlab's
// uniform adapter (pake.Lookup("spake2plus")) uses, with the record
// Record{Salt, W0, L} in the fixed 129-byte encoding of MarshalBinary. A
// salt fixed by the identities still makes every account's password hash
// distinct, so no table serves two accounts; what it gives up, against a
// random salt sent to the prover, is resistance to precomputation: an
// attacker can hash guesses for a chosen account before stealing its
// record.
//
// # Messages
//
// The prover speaks first and there are three messages (RFC 9383, Sections
// 3.3 and 3.4; the verifier sends shareV and confirmV together, as Section
// 3.1 allows):
//
//	prover   → verifier  shareP = X = x*P + w0*M              65 bytes
//	verifier → prover    shareV = Y = y*P + w0*N,
//	                     confirmV = MAC(K_confirmV, shareP)   65 + 32 bytes
//	prover   → verifier  confirmP = MAC(K_confirmP, shareV)   32 bytes
//
// Points are SEC 1 uncompressed, as in the RFC's test vectors. The prover
// computes Z = x*(Y - w0*N) and V = w1*(Y - w0*N); the verifier computes
// Z = y*(X - w0*M) and V = y*L (the cofactor h of P-256 is 1). Both then
// build the transcript TT of Section 3.3 and the key schedule of Section
// 3.4:
//
//	K_main = SHA-256(TT)
//	K_confirmP || K_confirmV = HKDF-SHA256(salt=nil, K_main, "ConfirmationKeys"), 64 bytes
//	K_shared = HKDF-SHA256(salt=nil, K_main, "SharedKey"), 32 bytes
//
// K_shared is the session key. Each side checks the peer's confirmation in
// constant time and fails with pakeerr.ErrAuthFailed on a mismatch; shares
// that do not decode to a point of the group, the identity, or shares that
// cancel the password's mask are refused with pakeerr.ErrInvalidMessage.
//
// Secret arithmetic runs on internal/group (filippo.io/nistec and
// filippo.io/bigmod), which is constant time; M and N are multiplied
// through fixed-base tables.
package spake2plus

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"sync"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
)

// Sizes of the suite's values, in bytes.
const (
	// ScalarSize is the size of w0 and w1: big-endian integers modulo p.
	ScalarSize = group.ScalarSize
	// ShareSize is the size of shareP, shareV and L: SEC 1 uncompressed
	// P-256 points.
	ShareSize = group.UncompressedPointSize
	// ConfirmSize is the size of confirmP and confirmV (HMAC-SHA256).
	ConfirmSize = sha256.Size
	// KeySize is the size of the session key K_shared.
	KeySize = sha256.Size
)

// Suite is the RFC 9383 name of the ciphersuite this package implements.
const Suite = "P256-SHA256-HKDF-SHA256-HMAC-SHA256"

// The points M and N for P-256, RFC 9383, Section 4 (SEC 1 compressed;
// Appendix B gives their derivation from the seeds
// "1.2.840.10045.3.1.7 point generation seed (M)" and "(N)").
const (
	mHex = "02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f"
	nHex = "03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49"
)

// constants holds M and N, their fixed-base tables, and their uncompressed
// encodings for the transcript.
type constants struct {
	mTable, nTable *group.Table
	mBytes, nBytes []byte
}

var suiteConstants = sync.OnceValue(func() *constants {
	m, n := mustPoint(mHex), mustPoint(nHex)
	return &constants{
		mTable: group.NewTable(m),
		nTable: group.NewTable(n),
		mBytes: m.Bytes(),
		nBytes: n.Bytes(),
	}
})

func mustPoint(h string) *group.Point {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic("spake2plus: bad constant: " + err.Error())
	}
	p, err := group.NewPoint().SetBytes(b)
	if err != nil {
		panic("spake2plus: bad constant: " + err.Error())
	}
	return p
}

// parseScalar decodes w0 or w1: ScalarSize bytes, big-endian, less than p
// and not zero.
func parseScalar(name string, b []byte) (*group.Scalar, error) {
	s, err := group.NewScalar().SetCanonicalBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", pakeerr.ErrInvalidParameter, name, err)
	}
	if s.IsZero() == 1 {
		return nil, fmt.Errorf("%w: %s is zero", pakeerr.ErrInvalidParameter, name)
	}
	return s, nil
}

// parseShare decodes a peer's share: exactly ShareSize bytes, an
// uncompressed point on P-256 other than the identity. P-256 has cofactor
// 1, so every such point is in the prime-order group (RFC 9383, Section 6).
func parseShare(name string, b []byte) (*group.Point, error) {
	if len(b) != ShareSize || b[0] != 4 {
		return nil, fmt.Errorf("%w: %s: want a %d-byte uncompressed point", pakeerr.ErrInvalidMessage, name, ShareSize)
	}
	p, err := group.NewPoint().SetBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", pakeerr.ErrInvalidMessage, name, err)
	}
	return p, nil
}

// share returns s*P + w0*T, where T is M (for shareP = X) or N (for
// shareV = Y).
func share(s, w0 *group.Scalar, t *group.Table) *group.Point {
	sp := group.NewPoint().ScalarBaseMult(s)
	wt := group.NewPoint().TableMult(w0, t)
	return sp.Add(sp, wt)
}

// unmask returns peer - w0*T: Y - w0*N for the prover, X - w0*M for the
// verifier. A share equal to w0*T, whose unmasked value is the identity,
// would make Z and V the identity; it is refused. (Only a peer that already
// knows w0 can send one.)
func unmask(name string, peer *group.Point, w0 *group.Scalar, t *group.Table) (*group.Point, error) {
	wt := group.NewPoint().TableMult(w0, t)
	u := group.NewPoint().Add(peer, wt.Negate(wt))
	if u.IsIdentity() == 1 {
		return nil, fmt.Errorf("%w: %s cancels the password mask", pakeerr.ErrInvalidMessage, name)
	}
	return u, nil
}

// transcript returns TT, RFC 9383, Section 3.3: every field preceded by its
// length as an 8-byte little-endian integer.
func transcript(context, idProver, idVerifier, shareP, shareV, z, v, w0 []byte) []byte {
	c := suiteConstants()
	return lengthPrefixed(make([]byte, 0, 512), context, idProver, idVerifier,
		c.mBytes, c.nBytes, shareP, shareV, z, v, w0)
}

// lengthPrefixed appends each field, preceded by its length as an 8-byte
// little-endian integer (RFC 9383's len()), to dst.
func lengthPrefixed(dst []byte, fields ...[]byte) []byte {
	for _, f := range fields {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// keys is the key schedule of RFC 9383, Section 3.4.
type keys struct {
	main, confirmP, confirmV, shared []byte
}

// schedule derives the keys from TT.
func schedule(tt []byte) keys {
	h := sha256.Sum256(tt)
	// HKDF with salt nil: Extract uses a zero-filled salt, as RFC 5869
	// specifies for an absent salt.
	prk := must(hkdf.Extract(sha256.New, h[:], nil))
	ck := must(hkdf.Expand(sha256.New, prk, "ConfirmationKeys", 2*ConfirmSize))
	k := keys{main: h[:], confirmP: ck[:ConfirmSize], confirmV: ck[ConfirmSize:],
		shared: must(hkdf.Expand(sha256.New, prk, "SharedKey", KeySize))}
	clear(prk)
	return k
}

// must returns b; HKDF-SHA256 fails only for output lengths this package
// never asks for.
func must(b []byte, err error) []byte {
	if err != nil {
		panic("spake2plus: unreachable: " + err.Error())
	}
	return b
}

// wipe clears the keys that must not outlive the exchange (K_main and the
// confirmation keys), best effort.
func (k *keys) wipe() {
	clear(k.main)
	clear(k.confirmP)
	clear(k.confirmV)
}

// mac is HMAC-SHA256(key, msg).
func mac(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// state is where a party stands.
type state uint8

const (
	stateStart  state = iota // nothing sent or received
	stateActive              // the first message is out; waiting for the peer
	stateDone                // finished; the session key is available
	stateFailed              // an error occurred; the party refuses further use
)

// party is what the prover and the verifier share: the transcript's
// public inputs, w0, and the state of the exchange.
type party struct {
	rand                          io.Reader
	context, idProver, idVerifier []byte
	w0                            *group.Scalar
	w0Bytes                       []byte
	key                           []byte // K_shared; released once Done
	state                         state
}

func newParty(r io.Reader, context, idProver, idVerifier, w0 []byte) (party, error) {
	s0, err := parseScalar("w0", w0)
	return party{rand: sysrand.Or(r), context: bytes.Clone(context), idProver: bytes.Clone(idProver),
		idVerifier: bytes.Clone(idVerifier), w0: s0, w0Bytes: bytes.Clone(w0)}, err
}

// transcript returns this exchange's TT.
func (p *party) transcript(shareP, shareV, z, v []byte) []byte {
	return transcript(p.context, p.idProver, p.idVerifier, shareP, shareV, z, v, p.w0Bytes)
}

// Done reports whether the exchange finished and the session key is
// available.
func (p *party) Done() bool { return p.state == stateDone }

// SessionKey returns K_shared (KeySize bytes) once Done, and an error
// wrapping pakeerr.ErrState before.
func (p *party) SessionKey() ([]byte, error) {
	if p.state != stateDone {
		return nil, errState("no session key before the exchange finished")
	}
	return bytes.Clone(p.key), nil
}

// fail kills the party and returns err. A finished party keeps its session
// key: misusing it afterwards is refused but loses nothing.
func (p *party) fail(err error) error {
	if p.state != stateDone {
		p.state = stateFailed
		clear(p.key)
		p.key = nil
	}
	return err
}

func errState(what string) error {
	return fmt.Errorf("%w: %s", pakeerr.ErrState, what)
}
