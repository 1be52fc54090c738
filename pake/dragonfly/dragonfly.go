// Package dragonfly implements the Dragonfly key exchange of RFC 7664 on
// NIST P-256, with SHA-256 as H and HKDF-SHA256 as KDF-n.
//
// Dragonfly is a balanced PAKE. Both peers derive a password element PE from
// the password and the two identities by hunting and pecking (§3.2.1), then
// exchange commits (§3.3) and confirms (§3.4):
//
//	base     = SHA-256(max(A,B) | min(A,B) | password | counter)
//	temp     = KDF-320(base, "Dragonfly Hunting And Pecking")
//	seed     = (temp mod (p-1)) + 1
//	PE       = (x, ±sqrt(x³ - 3x + b)) for the first seed x with x³ - 3x + b
//	           a quadratic residue; lsb(y) = lsb(base) of that round
//	scalar   = (private + mask) mod r,  Element = inverse(mask·PE)
//	ss       = F(private·(peer-scalar·PE + peer-Element))   (x coordinate)
//	kck | mk = KDF-512(ss, "Dragonfly Key Derivation")
//	confirm  = SHA-256(kck | scalar | peer-scalar | Element | Peer-Element | sender-id)
//
// mk is the shared key. KDF-n(k, label) is HKDF-SHA256 (RFC 5869) with an
// empty salt, input keying material k, info label and n/8 bytes of output:
// RFC 7664 leaves KDF-n to the profile. counter is one octet, scalars are 32
// big-endian octets and elements x || y, 64 octets.
//
// Hunting and pecking always runs Iterations (40) rounds, in constant time:
// every round does the same hashing, reduction, quadratic-residue test (the
// Legendre symbol as a constant-time exponentiation to (p-1)/2) and
// constant-time selection, whether or not an x was already found. RFC 7664
// blinds a variable-time Legendre computation with a random qr and qnr; a
// constant-time exponentiation gives the same answer and leaks nothing, so
// no blinding is needed. The square root is a constant-time exponentiation
// to (p+1)/4. Options.InsecureEarlyExit stops at the first success instead;
// its timing reveals the password's round count, so it exists only to
// measure what the constant-time loop costs.
//
// The two identities must differ. Peer is the symmetric protocol of the
// RFC. Party runs it as a two-party
// exchange in which the initiator speaks first:
//
//	initiator → responder   commit (scalar || Element)   96 bytes
//	responder → initiator   commit || confirm            128 bytes
//	initiator → responder   confirm                       32 bytes
//
// The commit exchange and its checks (1 < peer-scalar < r, peer-Element on
// the curve, no reflection of one's own commit) are shared with the
// IEEE 802.11 profile in package sae.
package dragonfly

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

// Suite names the instantiation.
const Suite = "P256-HKDF-SHA256 hunting-and-pecking (40 iterations, constant time)"

// Iterations is k, the number of hunting-and-pecking rounds always run
// (RFC 7664 §3.2.1: the loop continues for at least k rounds so that its
// duration does not depend on the password). With k = 40, as in
// IEEE 802.11 SAE, a password needs more rounds, and so takes longer, with
// probability about 2^-40.
const Iterations = 40

// Message and key sizes.
const (
	ScalarSize  = core.ScalarSize
	ElementSize = core.ElementSize
	CommitSize  = ScalarSize + ElementSize // scalar || Element
	ConfirmSize = sha256.Size
	KeySize     = sha256.Size // mk
)

// Labels of RFC 7664 §3.2.1 and §3.3.
const (
	labelHuntPeck = "Dragonfly Hunting And Pecking"
	labelKey      = "Dragonfly Key Derivation"
)

// Errors returned for a peer's commit, each wrapping pakeerr.ErrInvalidMessage.
var (
	ErrInvalidScalar  = core.ErrInvalidScalar
	ErrInvalidElement = core.ErrInvalidElement
	ErrReflection     = core.ErrReflection
)

// Options tunes password element derivation. The zero value (or nil) is the
// secure default.
type Options struct {
	// InsecureEarlyExit stops hunting and pecking at the first round that
	// finds an x instead of always running Iterations rounds. INSECURE: the
	// run time then depends on the password (the attack of "Dragonblood",
	// Vanhoef and Ronen, 2020). It exists only to measure the cost of the
	// constant-time loop.
	InsecureEarlyExit bool
}

// kdf is KDF-n(k, label) with n = 8·size: HKDF-SHA256 with an empty salt.
func kdf(k []byte, label string, size int) []byte {
	out, err := hkdf.Key(sha256.New, k, nil, label, size)
	if err != nil {
		panic("dragonfly: unreachable: HKDF output length rejected: " + err.Error())
	}
	return out
}

// PasswordElement derives PE from the password and the identities of the two
// peers (in either order) by hunting and pecking (RFC 7664 §3.2.1). The
// identities must differ: min and max of equal strings are not defined by the
// RFC, and equal identities would make the two confirms interchangeable.
func PasswordElement(password, idA, idB []byte, opts *Options) (*group.Point, error) {
	if len(password) == 0 {
		return nil, fmt.Errorf("%w: empty password", pakeerr.ErrInvalidParameter)
	}
	hi, lo := idA, idB
	switch bytes.Compare(idA, idB) {
	case 0:
		return nil, fmt.Errorf("%w: the two identities are equal", pakeerr.ErrInvalidParameter)
	case -1:
		hi, lo = idB, idA
	}
	earlyExit := opts != nil && opts.InsecureEarlyExit
	return huntAndPeck(password, hi, lo, earlyExit)
}

// tempSize is n/8 for n = len(p) + 64 bits: the 64 extra bits make
// temp mod (p-1) close to uniform.
const tempSize = core.FieldSize + 8

func huntAndPeck(password, hi, lo []byte, earlyExit bool) (*group.Point, error) {
	var x core.Element
	found, saveLSB := 0, 0
	h := sha256.New()
	base := make([]byte, 0, sha256.Size)
	// while ((counter <= k) || (found == 0)); counter is one octet.
	for counter := 1; counter <= 255 && (counter <= Iterations || found == 0); counter++ {
		h.Reset()
		h.Write(hi)
		h.Write(lo)
		h.Write(password)
		h.Write([]byte{byte(counter)})
		base = h.Sum(base[:0])
		temp := kdf(base, labelHuntPeck, tempSize)

		var seed, val core.Element
		seed.SetMinus1Plus1(temp)
		val.CurveRHS(&seed)
		isQR := core.IsSquare(&val)
		// Keep the first seed that works: take it iff isQR and not found.
		take := isQR & (1 ^ found)
		x.Select(&seed, &x, take)
		saveLSB = subtle.ConstantTimeSelect(take, int(base[sha256.Size-1]&1), saveLSB)
		found |= isQR

		if earlyExit && found == 1 {
			break // INSECURE: see Options.InsecureEarlyExit.
		}
	}
	if found == 0 {
		// 255 rounds without a square: probability about 2^-255.
		return nil, fmt.Errorf("%w: no password element found", pakeerr.ErrInvalidParameter)
	}
	return pointWithParity(&x, saveLSB)
}

// pointWithParity returns (x, y) with y = ±sqrt(x³ - 3x + b) chosen so that
// lsb(y) = lsb, in constant time. x³ - 3x + b must be a square.
func pointWithParity(x *core.Element, lsb int) (*group.Point, error) {
	var y, negY core.Element
	y.Sqrt(new(core.Element).CurveRHS(x))
	negY.Negate(&y)
	y.Select(&y, &negY, 1^(y.IsOdd()^lsb))
	return core.PointFromAffine(x, &y)
}
