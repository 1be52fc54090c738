// Package pace implements PACE, Password Authenticated Connection
// Establishment, as ICAO Doc 9303 Part 11 (8th edition, 2021) §4.4
// specifies it for electronic travel documents (the same protocol as BSI
// TR-03110 Parts 2 and 3), in its elliptic-curve forms with the Generic
// Mapping (§4.4.3.3.1) and the Integrated Mapping (§4.4.3.3.2, with the
// point encoding of Appendix B, which BSI TR-03110 Part 3 §A.3 also
// specifies), and the cipher suite AES-CBC-CMAC-128. Section numbers are
// those of Part 11.
//
// The terminal (PCD, the inspection system) and the chip (PICC) share a
// password π, from which both derive a 16-byte key K_π with a
// password-to-key function: ICAO's KDF_π (ICAOPasswordKey), or the default
// suite's PBKDF2 (PBKDF2PasswordKey). The curve is P-256 (ICAO domain
// parameters ID 12) or brainpoolP256r1 (ID 13). KDF(K, c) =
// SHA-1(K ‖ c)[:16] (§9.7.1); E is AES-128 (CBC with a zero IV for the
// one-block nonce); MAC is AES-CMAC truncated to 8 bytes (internal/cmac).
//
// # Messages
//
// The terminal is the party that speaks first. ICAO's exchange is an
// MSE:Set AT command, which selects the protocol, then four General
// Authenticate command/response pairs, whose data objects carry the
// values below. A message here is exactly those values, without APDUs or
// data-object framing, every point in the uncompressed SEC 1 encoding
// (65 bytes) that the data objects use. With the Generic Mapping:
//
//	1 T→C  OID ‖ ID        the protocol OID's 10 content bytes and the
//	                       domain parameter ID (what MSE:Set AT selects);
//	                       the chip refuses any other protocol
//	2 C→T  z               z = E(K_π, s), s a random 16-byte nonce (DO 80)
//	3 T→C  PK_Map,PCD      SK_Map,PCD·G (DO 81)
//	4 C→T  PK_Map,PICC     SK_Map,PICC·G (DO 82); both sides compute
//	                       H = SK_Map·PK_Map,peer and G' = s·G + H
//	5 T→C  PK_PCD          SK_PCD·G' (DO 83)
//	6 C→T  PK_PICC         SK_PICC·G' (DO 84); both compute
//	                       K = x(SK·PK_peer), K_enc = KDF(K, 1),
//	                       K_mac = KDF(K, 2)
//	7 T→C  T_PCD           MAC(K_mac, PK_PICC) (DO 85)
//	8 C→T  T_PICC          MAC(K_mac, PK_PCD) (DO 86)
//
// where MAC(K_mac, PK) is over the public key data object 7F49 { 06 OID,
// 86 PK } (§9.4). With the Integrated Mapping the terminal's mapping data
// is a random 16-byte nonce t, both sides compute G' = f_G(R_p(s, t)) with
// the AES-based pseudo-random function R_p of §4.4.3.3.2 and the point
// encoding f_G of Appendix B, and the chip's response to the mapping step
// is empty in ICAO's exchange. A message cannot be empty here, so the
// terminal's two consecutive contributions travel together:
//
//	1 T→C  OID ‖ ID
//	2 C→T  z
//	3 T→C  t ‖ PK_PCD      (ICAO's DO 81, then DO 83 in the next command)
//	4 C→T  PK_PICC
//	5 T→C  T_PCD
//	6 C→T  T_PICC
//
// The values and the order in which they are disclosed are ICAO's; the
// Integrated Mapping saves one round trip of an empty response.
//
// A party aborts, with an error wrapping pakeerr.ErrInvalidMessage, on a
// message of the wrong length, a point that is not a valid uncompressed
// point on the curve (or is the identity), a peer's ephemeral public key
// equal to its own (ICAO requires the chip to check that PK_PCD differs
// from PK_PICC; the terminal checks too), and a mapped generator or shared
// secret that is the identity. A token that does not verify (a wrong
// password, or a modified message) fails with pakeerr.ErrAuthFailed. The
// session keys are K_enc and K_mac, the keys of the secure messaging that
// follows PACE; SessionKey returns K_enc ‖ K_mac.
package pace

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/sysrand"
	"github.com/kexlab/kexlab/pake/pace/internal/suite"
)

type role int

const (
	terminal role = iota
	chip
)

type state int

const (
	stStart   state = iota
	stNonce         // terminal: request sent, waiting for z
	stMapping       // waiting for the peer's mapping data
	stKey           // waiting for the peer's ephemeral public key
	stToken         // waiting for the peer's token
	stDone
	stFailed
)

// Party is one side of a PACE exchange: a state machine driven by Next,
// with the Next/Done/SessionKey contract of pake.Party.
type Party struct {
	role    role
	mapping Mapping
	curve   *suite.Curve
	oid     []byte
	rand    io.Reader
	state   state

	kpi   []byte      // K_π
	s     []byte      // the nonce
	skMap []byte      // GM: the mapping key
	sk    []byte      // the ephemeral key
	gen   suite.Point // G'
	own   []byte      // own ephemeral public key
	kEnc  []byte
	kMac  []byte
	// expect is the peer's token, ownToken this party's.
	expect, ownToken []byte
}

// NewTerminal starts the terminal (PCD) side. It derives K_π from the
// password now; its first Next(nil) returns the request.
func NewTerminal(rand io.Reader, c Config, password []byte) (*Party, error) {
	return newParty(rand, terminal, c, password)
}

// NewChip starts the chip (PICC) side. Its first Next takes the
// terminal's request and returns z.
func NewChip(rand io.Reader, c Config, password []byte) (*Party, error) {
	return newParty(rand, chip, c, password)
}

// newParty is NewTerminal and NewChip. The party draws its nonces and
// ephemeral keys from rand when Next runs; a nil rand means crypto/rand.
func newParty(rand io.Reader, r role, c Config, password []byte) (*Party, error) {
	rand = sysrand.Or(rand)
	cv, err := lookupCurve(c.Curve)
	if err != nil {
		return nil, err
	}
	var oid []byte
	switch c.Mapping {
	case GenericMapping:
		oid = oidGM
	case IntegratedMapping:
		oid = oidIM
	default:
		return nil, fmt.Errorf("%w: pace: unknown mapping %v", pakeerr.ErrInvalidParameter, c.Mapping)
	}
	if c.PasswordKey == nil {
		return nil, fmt.Errorf("%w: pace: no password-to-key function", pakeerr.ErrInvalidParameter)
	}
	kpi, err := c.PasswordKey(password)
	if err != nil {
		return nil, err
	}
	if len(kpi) != KeySize {
		return nil, fmt.Errorf("%w: pace: K_pi of %d bytes, want %d", pakeerr.ErrInvalidParameter, len(kpi), KeySize)
	}
	return &Party{role: r, mapping: c.Mapping, curve: cv, oid: oid, rand: rand, kpi: bytes.Clone(kpi)}, nil
}

// request returns the terminal's first message, OID ‖ ID.
func (p *Party) request() []byte { return append(bytes.Clone(p.oid), p.curve.ID) }

// Next consumes the peer's message (nil for the terminal's first call) and
// returns this party's next message, or nil once it is done. After an
// error, or once done, Next fails with pakeerr.ErrState.
func (p *Party) Next(in []byte) ([]byte, error) {
	switch p.state {
	case stDone:
		return nil, fmt.Errorf("%w: pace: party has finished", pakeerr.ErrState)
	case stFailed:
		return nil, fmt.Errorf("%w: pace: party failed earlier", pakeerr.ErrState)
	}
	if p.role == terminal && p.state == stStart {
		if in != nil {
			return nil, p.fail(fmt.Errorf("%w: pace: the terminal speaks first and takes no message", pakeerr.ErrInvalidMessage))
		}
		p.state = stNonce
		return p.request(), nil
	}
	if in == nil {
		return nil, p.fail(fmt.Errorf("%w: pace: missing the peer's message", pakeerr.ErrInvalidMessage))
	}
	var out []byte
	var err error
	if p.role == terminal {
		out, err = p.terminalStep(in)
	} else {
		out, err = p.chipStep(in)
	}
	if err != nil {
		return nil, p.fail(err)
	}
	if p.state == stDone {
		p.erase()
	}
	return out, nil
}

func (p *Party) terminalStep(in []byte) ([]byte, error) {
	switch p.state {
	case stNonce: // in = z
		s, err := suite.DecryptNonce(p.kpi, in)
		if err != nil {
			return nil, err
		}
		p.s = s
		if p.mapping == GenericMapping {
			pkMap, err := p.newMappingKey()
			if err != nil {
				return nil, err
			}
			p.state = stMapping
			return pkMap, nil
		}
		t := make([]byte, NonceSize)
		if _, err := io.ReadFull(p.rand, t); err != nil {
			return nil, fmt.Errorf("%w: pace: nonce t: %w", pakeerr.ErrRandom, err)
		}
		if p.gen, err = p.curve.IntegratedMapping(p.s, t); err != nil {
			return nil, err
		}
		pk, err := p.newEphemeralKey()
		if err != nil {
			return nil, err
		}
		p.state = stKey
		return append(t, pk...), nil
	case stMapping: // in = PK_Map,PICC
		if err := p.genericMapping(in); err != nil {
			return nil, err
		}
		pk, err := p.newEphemeralKey()
		if err != nil {
			return nil, err
		}
		p.state = stKey
		return pk, nil
	case stKey: // in = PK_PICC
		if err := p.agree(in); err != nil {
			return nil, err
		}
		p.state = stToken
		return bytes.Clone(p.ownToken), nil
	case stToken: // in = T_PICC
		if err := p.verifyToken(in); err != nil {
			return nil, err
		}
		p.state = stDone
		return nil, nil
	}
	return nil, fmt.Errorf("%w: pace: terminal in state %d", pakeerr.ErrState, p.state)
}

func (p *Party) chipStep(in []byte) ([]byte, error) {
	switch p.state {
	case stStart: // in = OID ‖ ID
		if !bytes.Equal(in, p.request()) {
			return nil, fmt.Errorf("%w: pace: the terminal requested %x, the chip runs %x", pakeerr.ErrInvalidMessage, in, p.request())
		}
		p.s = make([]byte, NonceSize)
		if _, err := io.ReadFull(p.rand, p.s); err != nil {
			return nil, fmt.Errorf("%w: pace: nonce s: %w", pakeerr.ErrRandom, err)
		}
		z, err := suite.EncryptNonce(p.kpi, p.s)
		if err != nil {
			return nil, err
		}
		p.state = stMapping
		return z, nil
	case stMapping:
		if p.mapping == GenericMapping { // in = PK_Map,PCD
			pkMap, err := p.newMappingKey()
			if err != nil {
				return nil, err
			}
			if err := p.genericMapping(in); err != nil {
				return nil, err
			}
			p.state = stKey
			return pkMap, nil
		}
		// in = t ‖ PK_PCD
		if len(in) != NonceSize+PointSize {
			return nil, fmt.Errorf("%w: pace: t||PK_PCD of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(in), NonceSize+PointSize)
		}
		var err error
		if p.gen, err = p.curve.IntegratedMapping(p.s, in[:NonceSize]); err != nil {
			return nil, err
		}
		return p.chipKey(in[NonceSize:])
	case stKey: // in = PK_PCD
		return p.chipKey(in)
	case stToken: // in = T_PCD
		if err := p.verifyToken(in); err != nil {
			return nil, err
		}
		p.state = stDone
		return bytes.Clone(p.ownToken), nil
	}
	return nil, fmt.Errorf("%w: pace: chip in state %d", pakeerr.ErrState, p.state)
}

// chipKey answers the terminal's ephemeral public key with the chip's.
func (p *Party) chipKey(pkPCD []byte) ([]byte, error) {
	pk, err := p.newEphemeralKey()
	if err != nil {
		return nil, err
	}
	if err := p.agree(pkPCD); err != nil {
		return nil, err
	}
	p.state = stToken
	return pk, nil
}

// newMappingKey samples SK_Map and returns PK_Map = SK_Map·G (GM).
func (p *Party) newMappingKey() ([]byte, error) {
	sk, err := p.curve.RandomScalar(p.rand)
	if err != nil {
		return nil, fmt.Errorf("%w: pace: mapping key: %w", pakeerr.ErrRandom, err)
	}
	p.skMap = sk
	return p.curve.BaseMul(sk).Bytes(), nil
}

// genericMapping computes H = SK_Map·PK_Map,peer and G' = s·G + H
// (§4.4.3.3.1).
func (p *Party) genericMapping(peerMap []byte) error {
	q, err := p.curve.Decode(peerMap)
	if err != nil {
		return err
	}
	h := q.Mul(p.skMap)
	clear(p.skMap)
	p.gen = p.curve.BaseMul(p.s).Add(h)
	if p.gen.IsIdentity() {
		return fmt.Errorf("%w: pace: mapped generator is the identity", pakeerr.ErrInvalidMessage)
	}
	return nil
}

// newEphemeralKey samples SK and returns PK = SK·G'.
func (p *Party) newEphemeralKey() ([]byte, error) {
	sk, err := p.curve.RandomScalar(p.rand)
	if err != nil {
		return nil, fmt.Errorf("%w: pace: ephemeral key: %w", pakeerr.ErrRandom, err)
	}
	p.sk = sk
	p.own = p.gen.Mul(sk).Bytes()
	return bytes.Clone(p.own), nil
}

// agree takes the peer's ephemeral public key, checks that it differs from
// this party's, computes K = x(SK·PK_peer), K_enc, K_mac and both tokens.
func (p *Party) agree(peerPK []byte) error {
	q, err := p.curve.Decode(peerPK)
	if err != nil {
		return err
	}
	if bytes.Equal(peerPK, p.own) {
		return fmt.Errorf("%w: pace: the peer's ephemeral public key equals this party's", pakeerr.ErrInvalidMessage)
	}
	k, err := q.Mul(p.sk).BytesX()
	clear(p.sk)
	if err != nil {
		return fmt.Errorf("%w: pace: shared secret is the identity", pakeerr.ErrInvalidMessage)
	}
	p.kEnc, p.kMac = suite.KDF(k, suite.CounterEnc), suite.KDF(k, suite.CounterMAC)
	clear(k)
	// Each token is over the other side's key: T_PCD = MAC(K_mac, PK_PICC),
	// T_PICC = MAC(K_mac, PK_PCD).
	if p.ownToken, err = suite.Token(p.kMac, p.oid, peerPK); err != nil {
		return err
	}
	p.expect, err = suite.Token(p.kMac, p.oid, p.own)
	return err
}

// verifyToken compares the peer's token with the expected one.
func (p *Party) verifyToken(t []byte) error {
	if len(t) != TokenSize {
		return fmt.Errorf("%w: pace: token of %d bytes, want %d", pakeerr.ErrInvalidMessage, len(t), TokenSize)
	}
	if subtle.ConstantTimeCompare(t, p.expect) != 1 {
		return fmt.Errorf("%w: pace: the peer's authentication token does not verify", pakeerr.ErrAuthFailed)
	}
	return nil
}

// fail kills the party, erasing its secrets and keys, and returns err.
func (p *Party) fail(err error) error {
	p.state = stFailed
	p.erase()
	clear(p.kEnc)
	clear(p.kMac)
	return err
}

// erase clears the secrets that the session keys no longer need.
func (p *Party) erase() {
	for _, b := range [][]byte{p.kpi, p.s, p.skMap, p.sk} {
		clear(b)
	}
	p.gen = nil
}

// Done reports whether the party has finished and verified the peer.
func (p *Party) Done() bool { return p.state == stDone }

// SessionKey returns K_enc ‖ K_mac once Done, an error wrapping
// pakeerr.ErrState before.
func (p *Party) SessionKey() ([]byte, error) {
	kEnc, kMac, err := p.Keys()
	if err != nil {
		return nil, err
	}
	return append(kEnc, kMac...), nil
}

// Keys returns the secure messaging keys K_enc and K_mac once Done.
func (p *Party) Keys() (kEnc, kMac []byte, err error) {
	if p.state != stDone {
		return nil, nil, fmt.Errorf("%w: pace: no session keys yet", pakeerr.ErrState)
	}
	return bytes.Clone(p.kEnc), bytes.Clone(p.kMac), nil
}
