package opaque

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// ClientParty and ServerParty run one login over wire bytes, as the state
// machines of kexlab's uniform interface (pake.Party): the client's Next(nil)
// returns KE1, the server's Next(KE1) returns KE2, the client's Next(KE2)
// returns KE3 and finishes, the server's Next(KE3) returns nil and
// finishes. After an error a party is dead and answers ErrState.

// party holds what both state machines share.
type party struct {
	step int // messages received so far; -1 once dead
	key  []byte
}

func (p *party) fail(err error) ([]byte, error) {
	p.step = -1
	return nil, err
}

func (p *party) stateError() ([]byte, error) {
	return p.fail(fmt.Errorf("%w: opaque: no message expected", pakeerr.ErrState))
}

// Done reports whether the party holds the session key.
func (p *party) Done() bool { return p.key != nil }

// SessionKey returns session_key once Done.
func (p *party) SessionKey() ([]byte, error) {
	if p.key == nil {
		return nil, fmt.Errorf("%w: opaque: no session key yet", pakeerr.ErrState)
	}
	return bytes.Clone(p.key), nil
}

// ClientParty is the client side of a login.
type ClientParty struct {
	party
	rand     io.Reader
	client   *Client
	st       *ClientState
	password []byte
	ids      Identities
}

// NewClientParty returns the client side of a login with password and the
// identities of registration. A nil rand means crypto/rand.
func NewClientParty(rand io.Reader, cfg Config, password []byte, ids Identities) (*ClientParty, error) {
	c, err := NewClient(cfg)
	if err == nil {
		err = protocol.Identities(ids).Check()
	}
	if err != nil {
		return nil, err
	}
	return &ClientParty{rand: rand, client: c, password: bytes.Clone(password), ids: cloneIdentities(ids)}, nil
}

// Next takes nil and returns KE1, then takes KE2 and returns KE3.
func (p *ClientParty) Next(in []byte) ([]byte, error) {
	switch p.step {
	case 0:
		if in != nil {
			return p.fail(fmt.Errorf("%w: opaque: the client speaks first", pakeerr.ErrInvalidMessage))
		}
		st, ke1, err := p.client.GenerateKE1(p.rand, p.password)
		clear(p.password) // the state holds its own copy
		if err != nil {
			return p.fail(err)
		}
		p.st, p.step = st, 1
		return ke1.Bytes(), nil
	case 1:
		ke2, err := ParseKE2(in)
		if err != nil {
			return p.fail(err)
		}
		ke3, key, _, err := p.st.GenerateKE3(ke2, p.ids)
		if err != nil {
			return p.fail(err)
		}
		p.key, p.step = key, 2
		return ke3.Bytes(), nil
	}
	return p.stateError()
}

// ServerParty is the server side of a login.
type ServerParty struct {
	party
	rand                 io.Reader
	server               *Server
	record               *RegistrationRecord
	st                   *ServerState
	credentialIdentifier []byte
	ids                  Identities
}

// NewServerParty returns the server side of a login for the client whose
// record is stored under credentialIdentifier, with the identities of its
// registration. A nil rand means crypto/rand.
func NewServerParty(rand io.Reader, server *Server, record *RegistrationRecord, credentialIdentifier []byte, ids Identities) (*ServerParty, error) {
	if inner(server) == nil || inner(record) == nil {
		return nil, fmt.Errorf("%w: opaque: no server or record", pakeerr.ErrInvalidParameter)
	}
	if err := protocol.Identities(ids).Check(); err != nil {
		return nil, err
	}
	return &ServerParty{rand: rand, server: server, record: record, credentialIdentifier: bytes.Clone(credentialIdentifier),
		ids: cloneIdentities(ids)}, nil
}

// Next takes KE1 and returns KE2, then takes KE3 and returns nil.
func (p *ServerParty) Next(in []byte) ([]byte, error) {
	switch p.step {
	case 0:
		ke1, err := ParseKE1(in)
		if err != nil {
			return p.fail(err)
		}
		st, ke2, err := p.server.GenerateKE2(p.rand, p.record, p.credentialIdentifier, ke1, p.ids)
		if err != nil {
			return p.fail(err)
		}
		p.st, p.step = st, 1
		return ke2.Bytes(), nil
	case 1:
		ke3, err := ParseKE3(in)
		if err != nil {
			return p.fail(err)
		}
		key, err := p.st.ServerFinish(ke3)
		if err != nil {
			return p.fail(err)
		}
		p.key, p.step = key, 2
		return nil, nil
	}
	return p.stateError()
}

// cloneIdentities returns a copy of ids that does not alias the caller's.
func cloneIdentities(ids Identities) Identities {
	return Identities(protocol.Identities(ids).Clone())
}
