// Package spake2 implements SPAKE2, the balanced password-authenticated key
// exchange of RFC 9382, with the ciphersuite P256-SHA256-HKDF-HMAC
// (RFC 9382, Section 6): the group P-256 with the RFC's points M and N,
// SHA-256 as Hash, HKDF-SHA256 as KDF and HMAC-SHA256 as MAC.
//
// # The password scalar w
//
// Both parties hold w = MHF(pw) mod p (RFC 9382, Section 3.2), where p is
// the order of P-256 and MHF a memory-hard function. NewA and NewB take w
// itself, as the 32-byte big-endian integer the RFC's test vectors print, so
// that the vectors can be replayed and an application can derive w however
// its profile says. DeriveW derives it: any MHF (Scrypt by default: scrypt,
// N=32768, r=8, p=1) followed by a wide reduction of 48 output bytes modulo
// p, so the bias is below 2^-128. SPAKE2 is balanced and has no stored salt;
// IdentitySalt gives a salt fixed by the two identities, which is what
// kexlab's uniform adapter (pake.Lookup("spake2")) uses.
//
// # Messages
//
// RFC 9382, Section 3.3 has A send pA, B send pB, and then each send a key
// confirmation MAC (Section 4). Here A (the client) speaks first and B sends
// its confirmation cB together with pB, since B can compute it as soon as it
// has pA. A checks cB before it answers with cA, so there are three
// messages:
//
//	A → B  pA = x*P + w*M                          65 bytes
//	B → A  pB = y*P + w*N  ||  cB = MAC(KcB, TT)   65 + 32 bytes
//	A → B  cA = MAC(KcA, TT)                       32 bytes
//
// The mapping changes no value: every computation, and every byte of pA,
// pB, cA and cB, is the RFC's. Points are SEC 1 uncompressed, as in the
// RFC's test vectors (Appendix B). x and y are uniform in [1, p-1].
//
// A computes K = h*x*(pB - w*N), B computes K = h*y*(pA - w*M); the cofactor
// h of P-256 is 1. Both build the transcript of Section 3.3,
//
//	TT = len(A) || A || len(B) || B || len(pA) || pA || len(pB) || pB
//	     || len(K) || K || len(w) || w
//
// where len is an 8-byte little-endian length, an absent identity is the
// empty string, K is SEC 1 uncompressed and w is 32 bytes big-endian, and
// derive the keys of Section 4:
//
//	Ke || Ka   = SHA-256(TT)                                         16 + 16 bytes
//	KcA || KcB = HKDF-SHA256(salt=nil, IKM=Ka, "ConfirmationKeys" || AAD)  16 + 16 bytes
//
// Ke is the session key. AAD is the associated data both parties were given
// (nil if none): it is bound only through the confirmation keys, so a
// mismatch is caught by key confirmation.
//
// # Checks
//
// Each party refuses, with pakeerr.ErrInvalidMessage, a peer share that is
// not a 65-byte uncompressed encoding of a point on P-256 (off-curve points,
// non-canonical coordinates and the identity do not decode), and a share
// that makes K the identity (pB = w*N or pA = w*M: the share cancels the
// password's mask). P-256 has cofactor 1, so every point that decodes is in
// the prime-order group (RFC 9382, Section 7). A wrong confirmation MAC fails
// with pakeerr.ErrAuthFailed; MACs are compared in constant time.
//
// Secret arithmetic runs on internal/group (filippo.io/nistec and
// filippo.io/bigmod), which is constant time; w*M and w*N go through
// fixed-base tables built once.
package spake2

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Sizes of the suite's values, in bytes.
const (
	// WSize is the size of the password scalar w: a big-endian integer
	// modulo p.
	WSize = group.ScalarSize
	// ShareSize is the size of pA and pB: SEC 1 uncompressed P-256 points.
	ShareSize = group.UncompressedPointSize
	// MACSize is the size of cA and cB (HMAC-SHA256).
	MACSize = sha256.Size
	// KeySize is the size of the session key Ke: half of SHA-256's output.
	KeySize = sha256.Size / 2
)

// Suite is the RFC 9382 name of the ciphersuite this package implements.
const Suite = "P256-SHA256-HKDF-HMAC"

// The points M and N for P-256, RFC 9382, Section 6, SEC 1 compressed
// (generated from the seeds "1.2.840.10045.3.1.7 point generation seed (M)"
// and "(N)").
const (
	mHex = "02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f"
	nHex = "03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49"
)

// fixedBases holds the fixed-base tables of M and N.
type fixedBases struct {
	m, n *group.Table
}

// bases decodes M and N and builds their tables, once, on first use.
var bases = sync.OnceValue(func() fixedBases {
	return fixedBases{m: group.NewTable(mustPoint(mHex)), n: group.NewTable(mustPoint(nHex))}
})

// mustPoint decodes one of the package's constant points.
func mustPoint(h string) *group.Point {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic("spake2: bad constant: " + err.Error())
	}
	p, err := group.NewPoint().SetBytes(b)
	if err != nil {
		panic("spake2: bad constant: " + err.Error())
	}
	return p
}

// parseW decodes w: WSize bytes, big-endian, in [1, p-1]. Zero is refused:
// with w = 0 the shares would not depend on the password at all.
func parseW(w []byte) (*group.Scalar, error) {
	s, err := group.NewScalar().SetCanonicalBytes(w)
	if err != nil {
		return nil, fmt.Errorf("%w: w: %v", pakeerr.ErrInvalidParameter, err)
	}
	if s.IsZero() == 1 {
		return nil, fmt.Errorf("%w: w is zero", pakeerr.ErrInvalidParameter)
	}
	return s, nil
}

// parseShare decodes the peer's share pA or pB: exactly ShareSize bytes, an
// uncompressed point on P-256 other than the identity.
func parseShare(name string, b []byte) (*group.Point, error) {
	if len(b) != ShareSize {
		return nil, fmt.Errorf("%w: %s: %d bytes, want %d", pakeerr.ErrInvalidMessage, name, len(b), ShareSize)
	}
	if b[0] != 4 {
		return nil, fmt.Errorf("%w: %s: prefix %#02x, want 0x04 (SEC 1 uncompressed)", pakeerr.ErrInvalidMessage, name, b[0])
	}
	p, err := group.NewPoint().SetBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", pakeerr.ErrInvalidMessage, name, err)
	}
	return p, nil
}

// share returns s*P + w*T: pA = x*P + w*M or pB = y*P + w*N (RFC 9382,
// Section 3.3).
func share(s, w *group.Scalar, t *group.Table) *group.Point {
	sp := group.NewPoint().ScalarBaseMult(s)
	wt := group.NewPoint().TableMult(w, t)
	return sp.Add(sp, wt)
}

// sharedPoint returns the encoding of K = s*(peer - w*T): A's
// x*(pB - w*N) or B's y*(pA - w*M) (RFC 9382, Section 3.3; h = 1). A peer
// share equal to w*T makes K the identity and is refused; only a peer that
// already knows w can send one.
func sharedPoint(name string, s, w *group.Scalar, peer *group.Point, t *group.Table) ([]byte, error) {
	wt := group.NewPoint().TableMult(w, t)
	u := group.NewPoint().Add(peer, wt.Negate(wt))
	k := u.ScalarMult(s, u)
	if k.IsIdentity() == 1 {
		return nil, fmt.Errorf("%w: %s cancels the password mask (K is the identity)", pakeerr.ErrInvalidMessage, name)
	}
	return k.Bytes(), nil
}
