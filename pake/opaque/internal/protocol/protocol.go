// Package protocol implements the registration and login flows of
// OPAQUE-3DH (RFC 9807) in the P-256/SHA-256 configuration of §7, on the
// wire messages of §5.1 and §6.1: CreateRegistrationRequest,
// CreateRegistrationResponse and FinalizeRegistrationRequest (§5.2),
// GenerateKE1, GenerateKE2, GenerateKE3 and ServerFinish (§6.2), with the
// credential retrieval of §6.3 (OPRF, key stretching, masking) and the fake
// record of §6.3.2.2. Package vectors replays the RFC 9807 Appendix D test
// vectors through it.
//
// It builds on internal/oprf (RFC 9497), internal/envelope (§4, §6.3.2)
// and internal/ake (§6.4). Package opaque is its documented API: it adds
// the key stretching functions, the storage format and the state machines
// of kexlab's uniform interface.
package protocol

import (
	"bytes"
	"fmt"

	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
	"github.com/kexlab/kexlab/pake/opaque/internal/envelope"
)

// Lengths of the configuration (RFC 9807 §2, §7), in bytes.
const (
	Nn    = envelope.NonceSize // Nn: nonces
	Nseed = 32                 // Nseed: key pair seeds
	Nh    = 32                 // Nh: SHA-256 output
	Nm    = 32                 // Nm: HMAC-SHA-256 output
	Npk   = 33                 // Npk: compressed P-256 public key
	Nsk   = 32                 // Nsk: P-256 private key
	Noe   = oprf.ElementSize   // Noe: serialized OPRF element
)

// Wire sizes of the messages (§4.1, §5.1, §6.1).
const (
	EnvelopeSize             = envelope.Size
	MaskedResponseSize       = envelope.Masked
	RegistrationRequestSize  = Noe
	RegistrationResponseSize = Noe + Npk
	RegistrationRecordSize   = Npk + Nh + EnvelopeSize
	KE1Size                  = Noe + Nn + Npk
	KE2Size                  = Noe + Nn + MaskedResponseSize + Nn + Npk + Nm
	KE3Size                  = Nm
)

// MaxLen is the longest password, identity or context: each is prefixed
// with its length as two bytes (§4, §6.4.2; RFC 9497 §3.3.1).
const MaxLen = oprf.MaxInputSize

// Config holds what both parties agree on besides the fixed suite: the
// context of the preamble (§6.4.2) and the client's key stretching
// function Stretch (§2.3), which must not be nil.
type Config struct {
	Context []byte
	Stretch func(msg []byte) ([]byte, error)
}

// clone checks c and returns a copy that does not alias the caller's
// context.
func (c Config) clone() (Config, error) {
	if c.Stretch == nil {
		return c, fmt.Errorf("%w: opaque: no key stretching function", pakeerr.ErrInvalidParameter)
	}
	var err error
	c.Context, err = cloneContext(c.Context)
	return c, err
}

func cloneContext(context []byte) ([]byte, error) {
	if len(context) > MaxLen {
		return nil, fmt.Errorf("%w: opaque: context of %d bytes", pakeerr.ErrInvalidParameter, len(context))
	}
	return bytes.Clone(context), nil
}

// RandomizedPassword computes randomized_password =
// Extract("", oprf_output || Stretch(oprf_output)) (§5.2.3, §6.3.2.3).
func RandomizedPassword(stretch func([]byte) ([]byte, error), oprfOutput []byte) ([]byte, error) {
	stretched, err := stretch(oprfOutput)
	if err != nil {
		return nil, fmt.Errorf("%w: opaque: key stretching: %v", pakeerr.ErrInvalidParameter, err)
	}
	ikm := append(bytes.Clone(oprfOutput), stretched...)
	defer clear(ikm)
	clear(stretched)
	return ake.Extract(ikm), nil
}

// Identities are client_identity and server_identity (§4, §6.4.2), in
// every call that binds them. A nil or empty identity is "not specified"
// and defaults to the party's public key (§4).
type Identities struct {
	Client, Server []byte
}

// Check rejects identities too long for their two-byte length prefix.
func (ids Identities) Check() error {
	for _, id := range [][]byte{ids.Client, ids.Server} {
		if len(id) > MaxLen {
			return fmt.Errorf("%w: opaque: identity of %d bytes", pakeerr.ErrInvalidParameter, len(id))
		}
	}
	return nil
}

// Clone returns a copy of ids that does not alias the caller's slices.
func (ids Identities) Clone() Identities {
	return Identities{Client: bytes.Clone(ids.Client), Server: bytes.Clone(ids.Server)}
}

func invalidMessage(format string, args ...any) error {
	return fmt.Errorf("%w: opaque: "+format, append([]any{pakeerr.ErrInvalidMessage}, args...)...)
}

func stateError(what string) error {
	return fmt.Errorf("%w: opaque: %s", pakeerr.ErrState, what)
}

// errNoServer and errNoClient answer a method called on a nil or zero-value
// Server or Client, one not made by NewServer or NewClient.
var (
	errNoServer = fmt.Errorf("%w: opaque: server not created by NewServer", pakeerr.ErrInvalidParameter)
	errNoClient = fmt.Errorf("%w: opaque: client not created by NewClient", pakeerr.ErrInvalidParameter)
)

func randomError(err error) error {
	return fmt.Errorf("%w: opaque: %v", pakeerr.ErrRandom, err)
}
