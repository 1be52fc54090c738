package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"

	"github.com/kexlab/kexlab/pake/apakepq"
	"github.com/kexlab/kexlab/server/internal/wire"
	"github.com/kexlab/kexlab/server/store"
)

// APAKEPQContext and APAKEPQServerID are the service's apakepq session
// (package apakepq's Session); the client's identity is the user name.
var (
	APAKEPQContext  = wire.Context
	APAKEPQServerID = wire.ServerID
)

// APAKEPQIterations is the PBKDF2 count the service's apakepq clients pass
// to package apakepq: one, since the password they pass is already
// stretched with the account's scrypt parameters (KDFParams, with a random
// salt fetched by /v1/login/params). The single PBKDF2 iteration then only
// binds the identities (apakepq's salt is H(ClientID, ServerID)). The
// package's own construction, a salt fixed by the identities, would let an
// attacker precompute a dictionary for one account before stealing its
// record; the random per-account salt removes that.
const APAKEPQIterations = wire.APAKEPQIterations

// apakepqScheme is the PQ augmented PAKE (package apakepq: the KEM-AE
// compiler over OCAKE with ML-KEM-512). Registration: the client sends the
// record rw ‖ ek (832 bytes) derived from the stretched password.
//
// A wrong password is found by the server at the first round (message 1
// does not decrypt to an ML-KEM key under the record's rw): login/start
// answers 401 auth_failed, for an unknown user (a fake record) exactly as
// for a known one, and the attempt counts as a failure.
type apakepqScheme struct {
	clientKDF
	fakeEK []byte // ek of every fake record: never sent, so one serves all
}

func newAPAKEPQ(secrets *Secrets, kdf KDFParams) (*apakepqScheme, error) {
	rec, err := apakepq.Register(secrets.derive("apakepq fake ek", "", 32), []byte("fake"), APAKEPQServerID, APAKEPQIterations)
	if err != nil {
		return nil, err
	}
	return &apakepqScheme{
		clientKDF: clientKDF{secrets: secrets, kdf: kdf, name: "apakepq", fakeLabel: "apakepq kdf salt"},
		fakeEK:    rec.Bytes()[apakepq.RecordSize-mlkem512.PublicKeySize:],
	}, nil
}

func apakepqSession(user string) apakepq.Session {
	return apakepq.Session{ClientID: []byte(user), ServerID: APAKEPQServerID, Context: APAKEPQContext}
}

func (sc *apakepqScheme) registerFinish(user string, state, msg []byte) ([]byte, []byte, error) {
	if len(msg) != apakepq.RecordSize {
		return nil, nil, errorf(http.StatusBadRequest, CodeBadMessage, "msg: a record of %d bytes, want %d", len(msg), apakepq.RecordSize)
	}
	if _, err := apakepq.ParseRecord(msg); err != nil {
		return nil, nil, badMessage(err)
	}
	// state is cleared by the caller once this returns: copy what is kept.
	return append([]byte(nil), msg...), append([]byte(nil), state...), nil
}

// record returns the account's record, or the fake one of user: rw
// derived from the user name and the one fake ek, parsed as a stored
// record is, so that both take the same work.
func (sc *apakepqScheme) record(user string, acct *store.Account) (*apakepq.Record, error) {
	var b []byte
	if acct != nil {
		b = acct.Record
	} else {
		b = append(sc.secrets.derive("apakepq fake rw", user, apakepq.RecordSize-len(sc.fakeEK)), sc.fakeEK...)
	}
	rec, err := apakepq.ParseRecord(b)
	if err != nil {
		return nil, fmt.Errorf("account %q: record: %w", user, err)
	}
	return rec, nil
}

func (sc *apakepqScheme) loginStart(user string, acct *store.Account, msg []byte) ([]byte, *KDFParams, []byte, error) {
	kdf, err1 := sc.params(user, acct)
	rec, err2 := sc.record(user, acct)
	if err := errors.Join(err1, err2); err != nil {
		return nil, nil, nil, err
	}
	s, err := apakepq.NewServer(nil, rec, apakepqSession(user))
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

func (sc *apakepqScheme) loginFinish(state, msg []byte) ([]byte, error) {
	s, err := apakepq.ResumeServer(state)
	if err != nil {
		return nil, err
	}
	if _, err := s.Next(msg); err != nil {
		return nil, badMessage(err)
	}
	return nil, nil
}
