package server

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kexlab/kexlab/pake/spake2plus"
	"github.com/kexlab/kexlab/server/internal/wire"
	"github.com/kexlab/kexlab/server/store"
)

// SPAKE2PlusContext and SPAKE2PlusVerifierID are bound into every SPAKE2+
// transcript (RFC 9383 §3.3); the prover's identity is the user name.
var (
	SPAKE2PlusContext    = wire.Context
	SPAKE2PlusVerifierID = wire.ServerID
)

// spake2plusScheme is SPAKE2+ (RFC 9383, P256-SHA256-HKDF-SHA256-HMAC-SHA256)
// with a random per-account salt and scrypt parameters, which the client
// fetches first (/v1/login/params), as Matter's PBKDF parameter exchange
// does. Registration: the client sends w0 || L (32 + 65 bytes).
type spake2plusScheme struct {
	clientKDF
	fakeL []byte // L of every fake record: never sent, so one serves all
}

func newSPAKE2Plus(secrets *Secrets, kdf KDFParams) (*spake2plusScheme, error) {
	fake := func(_ []byte, n int) ([]byte, error) { return secrets.derive("spake2+ fake L", "", n), nil }
	_, _, L, err := spake2plus.Register([]byte("fake"), nil, nil, fake)
	if err != nil {
		return nil, err
	}
	return &spake2plusScheme{clientKDF: clientKDF{secrets: secrets, kdf: kdf, name: "SPAKE2+", fakeLabel: "spake2+ kdf salt"}, fakeL: L}, nil
}

// clientKDF is the part of a scheme whose client stretches the password
// with per-account scrypt parameters and a random salt, fetched before
// the first login message (/v1/login/params): registration starts without
// a message and answers the new account's parameters.
type clientKDF struct {
	secrets   *Secrets
	kdf       KDFParams
	name      string // the scheme, for errors
	fakeLabel string // derives an unknown user's salt
}

func (c *clientKDF) registerStart(user string, msg []byte) ([]byte, *KDFParams, []byte, error) {
	if len(msg) != 0 {
		return nil, nil, nil, badRequest("msg: %s registration starts without a message", c.name)
	}
	salt, err := salt16()
	if err != nil {
		return nil, nil, nil, err
	}
	kdf := c.kdf
	kdf.Salt = salt
	state, err := json.Marshal(kdf)
	return []byte{}, &kdf, state, err
}

// params returns the account's KDF parameters, or the fake ones of user.
// Both paths do the same work — derive the fake salt and decode stored
// parameters (for an unknown user, the configured ones with that salt) —
// so that the time of the answer does not tell them apart (a decode alone
// costs a few microseconds, which the enumeration test finds).
func (c *clientKDF) params(user string, acct *store.Account) (*KDFParams, error) {
	fake := c.kdf
	fake.Salt = c.secrets.derive(c.fakeLabel, user, 16)
	fake.Salt[0] |= 1
	stored, err := json.Marshal(fake)
	if err != nil {
		return nil, err
	}
	if acct != nil {
		stored = acct.Params
	}
	var kdf KDFParams
	if err := json.Unmarshal(stored, &kdf); err != nil {
		return nil, fmt.Errorf("account %q: stored parameters: %w", user, err)
	}
	return &kdf, nil
}

func (sc *spake2plusScheme) registerFinish(user string, state, msg []byte) ([]byte, []byte, error) {
	if len(msg) != spake2plus.ScalarSize+spake2plus.ShareSize {
		return nil, nil, errorf(http.StatusBadRequest, CodeBadMessage, "msg: w0 || L of %d bytes, want %d", len(msg), spake2plus.ScalarSize+spake2plus.ShareSize)
	}
	w0, L := msg[:spake2plus.ScalarSize], msg[spake2plus.ScalarSize:]
	// NewVerifier checks w0 and L as a login would.
	if _, err := spake2plus.NewVerifier(nil, SPAKE2PlusContext, []byte(user), SPAKE2PlusVerifierID, w0, L); err != nil {
		return nil, nil, badMessage(err)
	}
	// state is cleared by the caller once this returns: copy what is kept.
	return append([]byte(nil), msg...), append([]byte(nil), state...), nil
}

func (sc *spake2plusScheme) loginStart(user string, acct *store.Account, msg []byte) ([]byte, *KDFParams, []byte, error) {
	kdf, err := sc.params(user, acct)
	if err != nil {
		return nil, nil, nil, err
	}
	var w0, L []byte
	if acct != nil && len(acct.Record) == spake2plus.ScalarSize+spake2plus.ShareSize {
		w0, L = acct.Record[:spake2plus.ScalarSize], acct.Record[spake2plus.ScalarSize:]
	} else if acct != nil {
		return nil, nil, nil, fmt.Errorf("account %q: record of %d bytes", user, len(acct.Record))
	} else {
		w0 = sc.secrets.derive("spake2+ fake w0", user, spake2plus.ScalarSize)
		w0[0] &= 0x7f // below the group order
		w0[0] |= 0x01 // not zero
		L = sc.fakeL
	}
	v, err := spake2plus.NewVerifier(nil, SPAKE2PlusContext, []byte(user), SPAKE2PlusVerifierID, w0, L)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("account %q: record: %w", user, err)
	}
	shareV, confirmV, err := v.Respond(msg)
	if err != nil {
		return nil, nil, nil, badMessage(err)
	}
	state, err := v.MarshalBinary()
	return append(shareV, confirmV...), kdf, state, err
}

func (sc *spake2plusScheme) loginFinish(state, msg []byte) ([]byte, error) {
	v, err := spake2plus.ResumeVerifier(state)
	if err != nil {
		return nil, err
	}
	if err := v.Finish(msg); err != nil {
		return nil, badMessage(err)
	}
	return nil, nil
}
