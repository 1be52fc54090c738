// Package group provides NIST P-256, the prime-order group most of
// kexlab's schemes run in. (The MODP groups of RFC 3526 and RFC 5054 are in
// package modp below this one.)
//
// Everything that touches a secret (a scalar, a password-derived value) is
// constant time. math/big is not used for secrets anywhere.
//
// Points are filippo.io/nistec points and scalars are integers modulo the
// group order n, on package internal/p256scalar (Montgomery arithmetic and
// a safegcd inversion at about 1/20 of a scalar multiplication, where
// bigmod's took 0.6 of one). Point.SetBytes accepts exactly the
// SEC 1 v2 §2.3.4 encodings of points other than the identity: compressed
// (0x02 or 0x03, then x) and uncompressed (0x04, then x and y), each
// coordinate 32 bytes, big-endian and below p, and the point on the curve.
// It rejects every other length or prefix (including the hybrid forms 0x06
// and 0x07) with ErrInvalidEncoding, and the identity, whose SEC 1 encoding
// is the single byte 0x00 (§2.3.3), with ErrIdentity: a peer's point must
// never be the identity. Bytes and BytesCompressed produce the §2.3.3
// encodings.
//
// HashToCurve and EncodeToCurve are the RFC 9380 suites
// P256_XMD:SHA-256_SSWU_RO_ and P256_XMD:SHA-256_SSWU_NU_ (§8.2):
// expand_message_xmd with SHA-256 (§5.3.1, oversize tags per §5.3.3),
// hash_to_field (§5.2) and the simplified SWU map (§6.6.2) in its
// straight-line form (Appendix F.2, sqrt_ratio of F.2.1.2), in constant time
// in the message. Their field arithmetic is package internal/p256field,
// written here for two reasons: nistec does not expose its field elements,
// and bigmod's generic arithmetic is about six times slower (a 256-bit
// exponentiation costs about 40 µs on the reference machine, against 7 µs),
// which would make a hash, with its two exponentiations, cost more than a
// variable-base scalar multiplication. With p256field HashToCurve costs
// about a quarter of one and EncodeToCurve an eighth. The points the map
// produces are
// handed to nistec through their uncompressed encoding, so nistec checks
// them too.
//
// NewTable and TableMult multiply a fixed point other than the generator
// (SPAKE2's M and N, say) by a secret scalar in constant time, with a
// precomputed table of signed windows: about half the cost of ScalarMult,
// but not the speed of ScalarBaseMult, for reasons given on Table.
package group
