// Package sae implements Simultaneous Authentication of Equals, the
// IEEE 802.11 profile of Dragonfly (IEEE Std 802.11-2020 §12.4), for
// finite cyclic group 19 (NIST P-256) with SHA-256.
//
// Both stations derive the password element PWE, either by hunting and
// pecking (§12.4.4.2.2) or by hash-to-element (§12.4.4.2.3):
//
//	hunting and pecking, counter = 1, 2, ..., at least 40 rounds:
//	  pwd-seed  = HMAC-SHA-256(MAX(MAC-A, MAC-B) || MIN(MAC-A, MAC-B), password || counter)
//	  pwd-value = KDF-SHA-256-256(pwd-seed, "SAE Hunting and Pecking", p)
//	  PWE       = (x, ±sqrt(x³ - 3x + b)) for the first pwd-value x < p with x³ - 3x + b
//	              a quadratic residue; LSB(y) = LSB(pwd-seed) of that round
//	hash-to-element:
//	  pwd-seed  = HKDF-Extract(ssid, password [|| identifier])
//	  u1, u2    = HKDF-Expand(pwd-seed, "SAE Hash to Element u1 P1" / "... u2 P2", 48) mod p
//	  PT        = SSWU(u1) + SSWU(u2)        (a per-SSID, per-password value to cache)
//	  val       = HKDF-Extract(0^32, MAX(MAC-A, MAC-B) || MIN(MAC-A, MAC-B)) mod (r-1) + 1
//	  PWE       = val·PT
//
// then run the Dragonfly commit and confirm exchanges (§12.4.5):
//
//	commit-scalar = (rand + mask) mod r,  COMMIT-ELEMENT = inverse(mask·PWE)
//	k             = F(rand·(peer-commit-scalar·PWE + PEER-COMMIT-ELEMENT))
//	keyseed       = HMAC-SHA-256(0^32, k)
//	KCK || PMK    = KDF-SHA-256-512(keyseed, "SAE KCK and PMK", (commit-scalar + peer-commit-scalar) mod r)
//	PMKID         = L((commit-scalar + peer-commit-scalar) mod r, 0, 128)
//	confirm       = HMAC-SHA-256(KCK, send-confirm || commit-scalar || COMMIT-ELEMENT ||
//	                             peer-commit-scalar || PEER-COMMIT-ELEMENT)
//
// Messages are the SAE fields of an Authentication frame body (§12.4.7.4,
// §12.4.7.5): a commit is the Finite Cyclic Group field (19, 2 octets
// little-endian), the scalar (32 octets) and the element (x || y,
// 64 octets); a confirm is the Send-Confirm field (2 octets little-endian)
// and the confirm (32 octets). Anti-clogging tokens, password identifier and rejected-groups
// elements belong to the frame layer and are not parsed here; with no
// rejected groups, H2E's keyseed salt is 0^32 as for hunting and pecking.
//
// Hunting and pecking always runs 40 rounds in constant time, as in package
// dragonfly: the range check pwd-value < p, the quadratic-residue test (a
// constant-time exponentiation to (p-1)/2, which gives the answer the
// standard's blinded test computes) and the selection of x are branch-free.
// The insecure early-exit variant exists only behind
// Options.InsecureEarlyExit, for measurement. Hash-to-element is constant
// time by construction.
package sae

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

// Group is the IANA finite cyclic group number of P-256 (§12.4.4.2.1).
const Group = 19

// Sizes of the SAE fields for group 19.
const (
	MACSize     = 6
	ScalarSize  = core.ScalarSize
	ElementSize = core.ElementSize
	CommitSize  = 2 + ScalarSize + ElementSize // group || scalar || element
	ConfirmSize = 2 + sha256.Size              // send-confirm || confirm
	KeySize     = sha256.Size                  // KCK and PMK
	PMKIDSize   = 16
	// MaxSSIDSize is the longest SSID.
	MaxSSIDSize = 32
)

// Iterations is k, the number of hunting-and-pecking rounds always run: the
// loop continues for at least k rounds whether or not PWE was found
// (§12.4.4.2.2), so that its duration does not depend on the password.
const Iterations = 40

// Errors for a peer's commit, each wrapping pakeerr.ErrInvalidMessage.
var (
	ErrInvalidScalar  = core.ErrInvalidScalar
	ErrInvalidElement = core.ErrInvalidElement
	ErrReflection     = core.ErrReflection
	// ErrUnsupportedGroup: the commit names a group other than 19.
	ErrUnsupportedGroup = fmt.Errorf("%w: finite cyclic group not supported", pakeerr.ErrInvalidMessage)
)

// MAC is a station's 6-octet MAC address.
type MAC [MACSize]byte

// MACFromID maps an identity that is not necessarily a MAC address to one,
// a kexlab convention for running SAE between parties named otherwise. A
// 6-octet identity is the address itself. Any other identity is hashed: the
// first six octets of SHA-256("kexlab SAE MAC" || id), with the group
// (multicast) bit cleared and the locally administered bit set (IEEE Std
// 802), so that it is a valid unicast address that no vendor assigns.
func MACFromID(id []byte) MAC {
	var m MAC
	if len(id) == MACSize {
		copy(m[:], id)
		return m
	}
	h := sha256.New()
	h.Write([]byte("kexlab SAE MAC"))
	h.Write(id)
	copy(m[:], h.Sum(nil))
	m[0] = m[0]&^0x01 | 0x02
	return m
}

// maxMin returns MAX(a, b) || MIN(a, b).
func maxMin(a, b MAC) []byte {
	if bytes.Compare(a[:], b[:]) < 0 {
		a, b = b, a
	}
	return append(a[:], b[:]...)
}

// Options tunes hunting and pecking. The zero value (or nil) is the secure
// default.
type Options struct {
	// InsecureEarlyExit stops hunting and pecking at the first round that
	// finds an x instead of always running Iterations rounds. INSECURE: the
	// run time then depends on the password (the Dragonblood timing attack,
	// Vanhoef and Ronen, 2020). It exists only to measure the cost of the
	// constant-time loop.
	InsecureEarlyExit bool
}

const labelHuntPeck = "SAE Hunting and Pecking"

// pwdSeed is H(MAX || MIN, password || counter).
func pwdSeed(key, password []byte, counter byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(password)
	m.Write([]byte{counter})
	return m.Sum(nil)
}

// pwdValue is KDF-SHA-256-256(pwd-seed, "SAE Hunting and Pecking", p).
func pwdValue(seed []byte) []byte {
	return core.KDFSHA256(seed, labelHuntPeck, core.PBytes(), 8*core.FieldSize)
}

// HuntAndPeck derives PWE from the password and the two stations' MAC
// addresses, in either order, by hunting and pecking (§12.4.4.2.2).
func HuntAndPeck(password []byte, macA, macB MAC, opts *Options) (*group.Point, error) {
	if len(password) == 0 {
		return nil, fmt.Errorf("%w: empty password", pakeerr.ErrInvalidParameter)
	}
	key := maxMin(macA, macB)
	earlyExit := opts != nil && opts.InsecureEarlyExit
	var x core.Element
	found, saveLSB := 0, 0
	// for (counter = 1; counter <= k || !found; counter++); counter is one octet.
	for counter := 1; counter <= 255 && (counter <= Iterations || found == 0); counter++ {
		seed := pwdSeed(key, password, byte(counter))
		value := pwdValue(seed)
		inRange := core.LessThanP(value)
		var cand, rhs core.Element
		cand.SetWideBytes(value) // = value when in range; discarded otherwise
		rhs.CurveRHS(&cand)
		ok := inRange & core.IsSquare(&rhs)
		take := ok & (1 ^ found)
		x.Select(&cand, &x, take)
		saveLSB = subtle.ConstantTimeSelect(take, int(seed[len(seed)-1]&1), saveLSB)
		found |= ok
		if earlyExit && found == 1 {
			break // INSECURE: see Options.InsecureEarlyExit.
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("%w: no password element found", pakeerr.ErrInvalidParameter)
	}
	var y, negY core.Element
	y.Sqrt(new(core.Element).CurveRHS(&x))
	negY.Negate(&y)
	y.Select(&y, &negY, 1^(y.IsOdd()^saveLSB))
	return core.PointFromAffine(&x, &y)
}

// PT is the password token of hash-to-element (§12.4.4.2.3): a secret
// point that depends only on the SSID, the password and the password
// identifier, so a station may derive it once and keep it.
type PT struct {
	p *group.Point
}

// Labels of §12.4.4.2.3.
const (
	labelU1 = "SAE Hash to Element u1 P1"
	labelU2 = "SAE Hash to Element u2 P2"
	// uSize is len = olen(p) + ceil(olen(p)/2).
	uSize = core.FieldSize + core.FieldSize/2
)

// DerivePT derives the password token from the SSID (at most 32 octets), the
// password and the optional password identifier (nil for none):
// PT = SSWU(u1) + SSWU(u2) (§12.4.4.2.3).
func DerivePT(ssid, password, identifier []byte) (*PT, error) {
	if len(password) == 0 {
		return nil, fmt.Errorf("%w: empty password", pakeerr.ErrInvalidParameter)
	}
	if len(ssid) > MaxSSIDSize {
		return nil, fmt.Errorf("%w: SSID of %d octets, at most %d", pakeerr.ErrInvalidParameter, len(ssid), MaxSSIDSize)
	}
	prk, err := pwdSeedH2E(ssid, password, identifier)
	if err != nil {
		return nil, err
	}
	p1, err := mapToCurve(prk, labelU1)
	if err != nil {
		return nil, err
	}
	p2, err := mapToCurve(prk, labelU2)
	if err != nil {
		return nil, err
	}
	return &PT{p: p1.Add(p1, p2)}, nil
}

// pwdSeedH2E is HKDF-Extract(ssid, password [|| identifier]).
func pwdSeedH2E(ssid, password, identifier []byte) ([]byte, error) {
	ikm := append(append([]byte(nil), password...), identifier...)
	return hkdf.Extract(sha256.New, ikm, ssid)
}

// hashToField returns pwd-value = HKDF-Expand(pwd-seed, label, len) and
// u = pwd-value mod p.
func hashToField(prk []byte, label string) ([]byte, *core.Element, error) {
	okm, err := hkdf.Expand(sha256.New, prk, label, uSize)
	if err != nil {
		return nil, nil, err
	}
	return okm, new(core.Element).SetWideBytes(okm), nil
}

func mapToCurve(prk []byte, label string) (*group.Point, error) {
	_, u, err := hashToField(prk, label)
	if err != nil {
		return nil, err
	}
	return core.MapToCurveSSWU(u)
}

// Bytes returns PT as x || y, for storage (nil for a nil or zero PT).
func (pt *PT) Bytes() []byte {
	if pt == nil || pt.p == nil {
		return nil
	}
	return core.EncodeElement(pt.p)
}

// ParsePT decodes a stored PT.
func ParsePT(b []byte) (*PT, error) {
	p, err := core.DecodeElement(b)
	if err != nil {
		return nil, fmt.Errorf("%w: stored PT is not a valid point", pakeerr.ErrInvalidParameter)
	}
	return &PT{p: p}, nil
}

// PWE derives the password element for two stations from PT (§12.4.4.2.3):
// val = HKDF-Extract(0^32, MAX(MAC-A, MAC-B) || MIN(MAC-A, MAC-B)),
// val = val mod (r-1) + 1, PWE = val·PT.
func (pt *PT) PWE(macA, macB MAC) (*group.Point, error) {
	if pt == nil || pt.p == nil {
		return nil, fmt.Errorf("%w: no PT (use DerivePT or ParsePT)", pakeerr.ErrInvalidParameter)
	}
	s, err := group.NewScalar().SetCanonicalBytes(pweScalar(macA, macB))
	if err != nil {
		return nil, err
	}
	return group.NewPoint().ScalarMult(s, pt.p), nil
}

// pweScalar returns val as 32 bytes.
func pweScalar(macA, macB MAC) []byte {
	val, err := hkdf.Extract(sha256.New, maxMin(macA, macB), make([]byte, sha256.Size))
	if err != nil {
		panic("sae: unreachable: HKDF-Extract failed: " + err.Error())
	}
	return core.ScalarMinus1Plus1(val)
}
