package server

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque"
	"github.com/kexlab/kexlab/pake/srp"
	"github.com/kexlab/kexlab/server/internal/wire"
	"github.com/kexlab/kexlab/server/store"
)

// KDFParams is a per-account key-stretching configuration that the client
// applies to the password before the PAKE (SRP: the password SRP sees is
// scrypt(password, salt, N, r, p, 32)). It is stored with the record, so
// that the server can raise it later (the client then re-registers).
type KDFParams = wire.KDFParams

// DefaultKDF is the key stretching of new accounts: scrypt with the
// parameters RFC 9807 recommends for OPAQUE (N = 32768, r = 8, p = 1).
var DefaultKDF = KDFParams{Alg: "scrypt", N: 32768, R: 8, P: 1}

// scheme is one PAKE as the service runs it, on the scheme's typed API.
// Each round gets the client's message and returns the reply, the KDF
// parameters to show the client (nil if none) and the state to keep until
// the next round (sealed in the store by the caller).
type scheme interface {
	registerStart(user string, msg []byte) (reply []byte, kdf *KDFParams, state []byte, err error)
	// registerFinish returns the record and the KDF parameters to store.
	registerFinish(user string, state, msg []byte) (record, kdf []byte, err error)
	// loginStart answers from acct, or, when acct is nil (an unknown user,
	// or one registered with another scheme), from a fake record derived
	// from the user name, so that both cases look alike.
	loginStart(user string, acct *store.Account, msg []byte) (reply []byte, kdf *KDFParams, state []byte, err error)
	// loginFinish returns the last reply (nil if the scheme has none), or an
	// error wrapping pakeerr.ErrAuthFailed.
	loginFinish(state, msg []byte) (reply []byte, err error)
}

// paramser is a scheme whose client needs the account's KDF parameters
// before its first login message (SPAKE2+); /v1/login/params serves them,
// from a fake record for an unknown user.
type paramser interface {
	params(user string, acct *store.Account) (*KDFParams, error)
}

// badMessage maps a scheme's parse errors to 400 bad_message; an
// authentication failure stays one (the handler answers it as such).
func badMessage(err error) error {
	if errors.Is(err, pakeerr.ErrAuthFailed) {
		return err
	}
	if errors.Is(err, pakeerr.ErrInvalidMessage) || errors.Is(err, pakeerr.ErrInvalidParameter) {
		return errorf(http.StatusBadRequest, CodeBadMessage, "%v", err)
	}
	return err
}

// srpScheme is SRP-6a in srp.ProfileRFC5054 with SHA-256, on a password
// stretched by the client with the account's KDFParams (clientKDF, as
// SPAKE2+ and apakepq; SRP adds its own salt).
type srpScheme struct {
	clientKDF
	p *srp.Params
}

// newSRP returns the scheme "srp-BITS". Its fake records are derived
// under labels that name the scheme: an unknown user's fake salts differ
// between srp-2048 and srp-3072, as a registered user's real and fake ones
// do.
func newSRP(bits int, secrets *Secrets, kdf KDFParams) (*srpScheme, error) {
	p, err := srp.NewParams(bits, crypto.SHA256)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("srp-%d", bits)
	return &srpScheme{clientKDF: clientKDF{secrets: secrets, kdf: kdf, name: name, fakeLabel: name + " kdf salt"}, p: p}, nil
}

// srpPending is kept between the two registration rounds.
type srpPending struct {
	Salt []byte    `json:"salt"`
	KDF  KDFParams `json:"kdf"`
}

// salt16 draws a 16-byte salt whose first byte is not zero (see pake/srp;
// setting its low bit costs one bit of the 128).
func salt16() ([]byte, error) {
	s := make([]byte, 16)
	if _, err := rand.Read(s); err != nil {
		return nil, err
	}
	s[0] |= 1
	return s, nil
}

// registerStart picks the SRP salt and the KDF parameters: the reply is
// the SRP salt; the client sends the verifier next.
func (sc *srpScheme) registerStart(user string, msg []byte) ([]byte, *KDFParams, []byte, error) {
	_, kdf, _, err := sc.clientKDF.registerStart(user, msg)
	if err != nil {
		return nil, nil, nil, err
	}
	salt, err := salt16()
	if err != nil {
		return nil, nil, nil, err
	}
	state, err := json.Marshal(srpPending{Salt: salt, KDF: *kdf})
	return salt, kdf, state, err
}

func (sc *srpScheme) registerFinish(user string, state, msg []byte) ([]byte, []byte, error) {
	var st srpPending
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, nil, err
	}
	rec := &srp.Record{Salt: st.Salt, Verifier: msg}
	b, err := rec.MarshalBinary()
	if err != nil {
		return nil, nil, badMessage(err)
	}
	if _, err := srp.ParseRecord(sc.p, b); err != nil {
		return nil, nil, badMessage(err)
	}
	kdf, err := json.Marshal(st.KDF)
	return b, kdf, err
}

// record returns the account's record and KDF parameters, or the fake ones
// of user: salt and KDF salt derived from the user name, and a verifier
// derived the same way (below N, since every RFC 5054 N has a top byte
// 0xFF), which no password opens. Both are parsed from their encoding, so
// that a known and an unknown user cost the same work.
func (sc *srpScheme) record(user string, acct *store.Account) (*srp.Record, *KDFParams, error) {
	kdf, err := sc.params(user, acct)
	if err != nil {
		return nil, nil, err
	}
	salt := sc.secrets.derive(sc.name+" salt", user, 16)
	salt[0] |= 1
	v := sc.secrets.derive(sc.name+" verifier", user, sc.p.ElementSize())
	v[0] &= 0x7f
	encoded, err := (&srp.Record{Salt: salt, Verifier: v}).MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	if acct != nil {
		encoded = acct.Record
	}
	rec, err := srp.ParseRecord(sc.p, encoded)
	if err != nil {
		return nil, nil, fmt.Errorf("account %q: stored record: %w", user, err)
	}
	return rec, kdf, nil
}

func (sc *srpScheme) loginStart(user string, acct *store.Account, msg []byte) ([]byte, *KDFParams, []byte, error) {
	rec, kdf, err := sc.record(user, acct)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := srp.NewServer(nil, sc.p, []byte(user), rec)
	if err != nil {
		return nil, nil, nil, err
	}
	reply, err := s.Next(msg)
	if err != nil {
		return nil, nil, nil, badMessage(err)
	}
	state, err := s.MarshalBinary()
	return reply, kdf, state, err
}

func (sc *srpScheme) loginFinish(state, msg []byte) ([]byte, error) {
	s, err := srp.ResumeServer(sc.p, state)
	if err != nil {
		return nil, err
	}
	reply, err := s.Next(msg)
	return reply, badMessage(err)
}

// opaqueScheme is OPAQUE-3DH on P-256 (RFC 9807) with the scrypt KSF; the
// credential identifier is the user name, the identities the defaults.
type opaqueScheme struct {
	server  *opaque.Server
	secrets *Secrets
	// fake is a fake record (RFC 9807 §6.3.2.2) whose masking key
	// fakeRecord replaces per user: its client_public_key is never sent
	// and serves every unknown user, as SPAKE2+'s fake L does.
	fake []byte
}

func newOPAQUE(secrets *Secrets) (*opaqueScheme, error) {
	keys, err := opaque.NewServerKeys(secrets.OPAQUEPrivateKey, secrets.OPAQUESeed)
	if err != nil {
		return nil, err
	}
	s, err := opaque.NewServer(opaque.Config{}, keys)
	if err != nil {
		return nil, err
	}
	fake, err := opaque.NewFakeRecord(bytes.NewReader(secrets.derive("opaque fake record", "", 256)))
	if err != nil {
		return nil, err
	}
	return &opaqueScheme{server: s, secrets: secrets, fake: fake.Bytes()}, nil
}

// fakeRecord is user's fake record: the one fake client_public_key, a
// masking key derived from the user name (it shapes KE2's masked_response,
// so repeated queries must agree) and the fake record's zero envelope. It
// is parsed as a stored record is: both paths do the same work (making a
// fresh fake record per user costs a scalar multiplication, 15–20 µs,
// which the enumeration test finds).
func (sc *opaqueScheme) fakeRecord(user string) []byte {
	b := bytes.Clone(sc.fake)
	copy(b[opaqueNpk:], sc.secrets.derive("opaque fake masking key", user, opaqueNh))
	return b
}

// A P-256 record's layout (RFC 9807 §5.1.1): client_public_key (Npk = 33
// bytes, compressed), masking_key (Nh = 32), envelope.
const opaqueNpk, opaqueNh = 33, 32

func (sc *opaqueScheme) registerStart(user string, msg []byte) ([]byte, *KDFParams, []byte, error) {
	req, err := opaque.ParseRegistrationRequest(msg)
	if err != nil {
		return nil, nil, nil, badMessage(err)
	}
	resp, err := sc.server.CreateRegistrationResponse(req, []byte(user))
	if err != nil {
		return nil, nil, nil, badMessage(err)
	}
	return resp.Bytes(), nil, []byte{}, nil
}

func (sc *opaqueScheme) registerFinish(user string, _, msg []byte) ([]byte, []byte, error) {
	rec, err := opaque.ParseRegistrationRecord(msg)
	if err != nil {
		return nil, nil, badMessage(err)
	}
	return rec.Bytes(), []byte(`{"ksf":"scrypt"}`), nil
}

func (sc *opaqueScheme) loginStart(user string, acct *store.Account, msg []byte) ([]byte, *KDFParams, []byte, error) {
	ke1, err := opaque.ParseKE1(msg)
	if err != nil {
		return nil, nil, nil, badMessage(err)
	}
	stored := sc.fakeRecord(user) // RFC 9807 §6.3.2.2, per user
	if acct != nil {
		stored = acct.Record
	}
	rec, err := opaque.ParseRegistrationRecord(stored)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("account %q: record: %w", user, err)
	}
	st, ke2, err := sc.server.GenerateKE2(nil, rec, []byte(user), ke1, opaque.Identities{})
	if err != nil {
		return nil, nil, nil, badMessage(err)
	}
	state, err := st.MarshalBinary()
	return ke2.Bytes(), nil, state, err
}

func (sc *opaqueScheme) loginFinish(state, msg []byte) ([]byte, error) {
	st, err := opaque.UnmarshalServerState(state)
	if err != nil {
		return nil, err
	}
	ke3, err := opaque.ParseKE3(msg)
	if err != nil {
		return nil, badMessage(err)
	}
	if _, err := st.ServerFinish(ke3); err != nil {
		return nil, badMessage(err)
	}
	return nil, nil
}
