package opaque

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// wantErr fails t unless err wraps target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got %v, want %v", what, err, target)
	}
}

// TestZeroMessages gives every function that takes a message a nil one and
// a zero-value one: each fails with ErrInvalidMessage (a record, which the
// server supplies, with ErrInvalidParameter), and Bytes of either is nil.
func TestZeroMessages(t *testing.T) {
	f := newFixture(t, pw, Identities{Client: []byte("alice")})
	for name, b := range map[string][]byte{
		"nil RegistrationRequest":   (*RegistrationRequest)(nil).Bytes(),
		"zero RegistrationRequest":  (&RegistrationRequest{}).Bytes(),
		"nil RegistrationResponse":  (*RegistrationResponse)(nil).Bytes(),
		"zero RegistrationResponse": (&RegistrationResponse{}).Bytes(),
		"nil RegistrationRecord":    (*RegistrationRecord)(nil).Bytes(),
		"zero RegistrationRecord":   (&RegistrationRecord{}).Bytes(),
		"nil KE1":                   (*KE1)(nil).Bytes(),
		"zero KE1":                  (&KE1{}).Bytes(),
		"nil KE2":                   (*KE2)(nil).Bytes(),
		"zero KE2":                  (&KE2{}).Bytes(),
		"nil KE3":                   (*KE3)(nil).Bytes(),
		"zero KE3":                  (&KE3{}).Bytes(),
		"nil StoredRecord":          (*StoredRecord)(nil).Bytes(),
		"zero StoredRecord":         (&StoredRecord{}).Bytes(),
	} {
		if b != nil {
			t.Errorf("%s: Bytes = %x, want nil", name, b)
		}
	}

	for _, req := range []*RegistrationRequest{nil, {}} {
		_, err := f.server.CreateRegistrationResponse(req, f.cid)
		wantErr(t, "CreateRegistrationResponse", err, pakeerr.ErrInvalidMessage)
	}
	for _, resp := range []*RegistrationResponse{nil, {}} {
		reg, _, err := f.client.CreateRegistrationRequest(rand.Reader, pw)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = reg.FinalizeRegistrationRequest(rand.Reader, resp, f.ids)
		wantErr(t, "FinalizeRegistrationRequest", err, pakeerr.ErrInvalidMessage)
	}
	st, ke1, err := f.client.GenerateKE1(rand.Reader, pw)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*KE1{nil, {}} {
		_, _, err := f.server.GenerateKE2(rand.Reader, f.record, f.cid, m, f.ids)
		wantErr(t, "GenerateKE2 with no KE1", err, pakeerr.ErrInvalidMessage)
	}
	for _, r := range []*RegistrationRecord{nil, {}} {
		_, _, err := f.server.GenerateKE2(rand.Reader, r, f.cid, ke1, f.ids)
		wantErr(t, "GenerateKE2 with no record", err, pakeerr.ErrInvalidParameter)
	}
	sst, ke2, err := f.server.GenerateKE2(rand.Reader, f.record, f.cid, ke1, f.ids)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = st.GenerateKE3(&KE2{}, f.ids)
	wantErr(t, "GenerateKE3 with a zero KE2", err, pakeerr.ErrInvalidMessage)
	st2, _, _ := f.client.GenerateKE1(rand.Reader, pw)
	_, _, _, err = st2.GenerateKE3(nil, f.ids)
	wantErr(t, "GenerateKE3 with a nil KE2", err, pakeerr.ErrInvalidMessage)
	_, err = sst.ServerFinish(&KE3{})
	wantErr(t, "ServerFinish with a zero KE3", err, pakeerr.ErrInvalidMessage)
	sst2, _, _ := f.server.GenerateKE2(rand.Reader, f.record, f.cid, ke1, f.ids)
	_, err = sst2.ServerFinish(nil)
	wantErr(t, "ServerFinish with a nil KE3", err, pakeerr.ErrInvalidMessage)
	if ke2.Bytes() == nil {
		t.Error("a real KE2 encodes to nil")
	}
}

// TestZeroValues uses the zero value and nil of every other type with
// methods: Client and Server fail with ErrInvalidParameter, the states with
// ErrState, the parties with a typed error and then ErrState.
func TestZeroValues(t *testing.T) {
	f := newFixture(t, pw, Identities{})
	for _, c := range []*Client{nil, {}} {
		_, _, err := c.CreateRegistrationRequest(rand.Reader, pw)
		wantErr(t, "CreateRegistrationRequest on a zero Client", err, pakeerr.ErrInvalidParameter)
		_, _, err = c.GenerateKE1(rand.Reader, pw)
		wantErr(t, "GenerateKE1 on a zero Client", err, pakeerr.ErrInvalidParameter)
	}
	_, ke1, _ := f.client.GenerateKE1(rand.Reader, pw)
	req, _ := ParseRegistrationRequest(ke1.Bytes()[:RegistrationRequestSize])
	for _, s := range []*Server{nil, {}} {
		if s.PublicKey() != nil {
			t.Error("PublicKey of a zero Server is not nil")
		}
		_, err := s.CreateRegistrationResponse(req, f.cid)
		wantErr(t, "CreateRegistrationResponse on a zero Server", err, pakeerr.ErrInvalidParameter)
		_, _, err = s.GenerateKE2(rand.Reader, f.record, f.cid, ke1, f.ids)
		wantErr(t, "GenerateKE2 on a zero Server", err, pakeerr.ErrInvalidParameter)
		_, err = NewServerParty(rand.Reader, s, f.record, f.cid, f.ids)
		wantErr(t, "NewServerParty with a zero Server", err, pakeerr.ErrInvalidParameter)
	}
	_, err := NewServerParty(rand.Reader, f.server, &RegistrationRecord{}, f.cid, f.ids)
	wantErr(t, "NewServerParty with a zero record", err, pakeerr.ErrInvalidParameter)
	_, err = NewServer(f.cfg, nil)
	wantErr(t, "NewServer with no keys", err, pakeerr.ErrInvalidParameter)
	wantErr(t, "Check of nil keys", (*ServerKeys)(nil).Check(), pakeerr.ErrInvalidParameter)
	wantErr(t, "Check of zero keys", (&ServerKeys{}).Check(), pakeerr.ErrInvalidParameter)

	for _, st := range []*ClientRegistration{nil, {}} {
		_, _, err := st.FinalizeRegistrationRequest(rand.Reader, nil, f.ids)
		wantErr(t, "FinalizeRegistrationRequest on a zero state", err, pakeerr.ErrState)
	}
	for _, st := range []*ClientState{nil, {}} {
		_, _, _, err := st.GenerateKE3(nil, f.ids)
		wantErr(t, "GenerateKE3 on a zero state", err, pakeerr.ErrState)
	}
	for _, st := range []*ServerState{nil, {}} {
		_, err := st.ServerFinish(nil)
		wantErr(t, "ServerFinish on a zero state", err, pakeerr.ErrState)
	}

	for name, p := range map[string]interface{ Next([]byte) ([]byte, error) }{
		"ClientParty": &ClientParty{}, "ServerParty": &ServerParty{},
	} {
		in := ke1.Bytes()
		if name == "ClientParty" {
			in = nil
		}
		if _, err := p.Next(in); err == nil || !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("zero %s: Next = %v, want ErrInvalidParameter", name, err)
		}
		_, err := p.Next(in)
		wantErr(t, "zero "+name+" after a failure", err, pakeerr.ErrState)
	}
}

// TestNilRand passes a nil reader, meaning crypto/rand, to every function
// that takes one, through a whole registration and login.
func TestNilRand(t *testing.T) {
	k1, err := GenerateServerKeys(nil)
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := GenerateServerKeys(nil)
	if bytes.Equal(k1.PrivateKey, k2.PrivateKey) || bytes.Equal(k1.OPRFSeed, k2.OPRFSeed) {
		t.Fatal("GenerateServerKeys(nil) twice gave the same keys")
	}
	if _, err := NewFakeRecord(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Unavoidable(nil, Identity); err != nil {
		t.Fatal(err)
	}
	cfg := Config{KSF: Identity}
	server, _ := NewServer(cfg, k1)
	client, _ := NewClient(cfg)
	ids := Identities{Client: []byte("alice")}
	reg, req, err := client.CreateRegistrationRequest(nil, pw)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.CreateRegistrationResponse(req, []byte("alice"))
	if err != nil {
		t.Fatal(err)
	}
	record, _, err := reg.FinalizeRegistrationRequest(nil, resp, ids)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClientParty(nil, cfg, pw, ids)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServerParty(nil, server, record, []byte("alice"), ids)
	if err != nil {
		t.Fatal(err)
	}
	ke1, err := c.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	ke2, err := s.Next(ke1)
	if err != nil {
		t.Fatal(err)
	}
	ke3, err := c.Next(ke2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(ke3); err != nil {
		t.Fatal(err)
	}
	ck, _ := c.SessionKey()
	sk, _ := s.SessionKey()
	if !bytes.Equal(ck, sk) || len(ck) != 32 {
		t.Fatalf("keys differ: %x %x", ck, sk)
	}
}

// TestServerKeys checks ServerPublicKey against the P-256 base point and
// that NewServerKeys, Check and NewServer refuse malformed or mismatched
// keys.
func TestServerKeys(t *testing.T) {
	// 1·G is the base point, compressed (SEC 2 §2.4.2: G's y is odd).
	one := append(make([]byte, 31), 1)
	g, _ := hex.DecodeString("036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
	if pk, err := ServerPublicKey(one); err != nil || !bytes.Equal(pk, g) {
		t.Errorf("ServerPublicKey(1) = %x, %v; want %x", pk, err, g)
	}
	n, _ := hex.DecodeString("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551") // SEC 2 §2.4.2
	for name, sk := range map[string][]byte{
		"nil": nil, "zero": make([]byte, 32), "n": n, "31 bytes": one[1:], "33 bytes": append([]byte{0}, one...),
	} {
		_, err := ServerPublicKey(sk)
		wantErr(t, "ServerPublicKey of "+name, err, pakeerr.ErrInvalidParameter)
		_, err = NewServerKeys(sk, make([]byte, 32))
		wantErr(t, "NewServerKeys of "+name, err, pakeerr.ErrInvalidParameter)
	}
	_, err := NewServerKeys(one, make([]byte, 31))
	wantErr(t, "NewServerKeys with a short oprf_seed", err, pakeerr.ErrInvalidParameter)

	keys, err := NewServerKeys(one, make([]byte, 32))
	if err != nil || !bytes.Equal(keys.PublicKey, g) {
		t.Fatalf("NewServerKeys(1) = %+v, %v", keys, err)
	}
	if err := keys.Check(); err != nil {
		t.Errorf("Check of NewServerKeys' result: %v", err)
	}
	other, _ := GenerateServerKeys(rand.Reader)
	mismatched := &ServerKeys{PrivateKey: keys.PrivateKey, PublicKey: other.PublicKey, OPRFSeed: keys.OPRFSeed}
	wantErr(t, "Check of a mismatched pair", mismatched.Check(), pakeerr.ErrInvalidParameter)
	_, err = NewServer(Config{}, mismatched)
	wantErr(t, "NewServer with a mismatched pair", err, pakeerr.ErrInvalidParameter)
}

// TestIdentitiesSwapped: identities are bound in order, so a login with
// the client's and the server's identities exchanged fails.
func TestIdentitiesSwapped(t *testing.T) {
	f := newFixture(t, pw, Identities{Client: []byte("alice"), Server: []byte("example.com")})
	f.ids = Identities{Client: f.ids.Server, Server: f.ids.Client}
	_, _, _, err := f.login(pw, nil)
	wantErr(t, "login with swapped identities", err, pakeerr.ErrAuthFailed)
}

// TestServerStateMarshal finishes a login from a marshalled server state,
// and refuses a state of the wrong length or one that has finished.
func TestServerStateMarshal(t *testing.T) {
	cfg := Config{KSF: Identity}
	client, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := GenerateServerKeys(nil)
	server, err := NewServer(cfg, keys)
	if err != nil {
		t.Fatal(err)
	}
	id, pw := []byte("alice"), []byte("pw")
	reg, req, _ := client.CreateRegistrationRequest(nil, pw)
	resp, _ := server.CreateRegistrationResponse(req, id)
	rec, _, err := reg.FinalizeRegistrationRequest(nil, resp, Identities{})
	if err != nil {
		t.Fatal(err)
	}
	cs, ke1, _ := client.GenerateKE1(nil, pw)
	ss, ke2, err := server.GenerateKE2(nil, rec, id, ke1, Identities{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ss.MarshalBinary()
	if err != nil || len(b) != 64 {
		t.Fatalf("MarshalBinary: %d bytes, %v", len(b), err)
	}
	restored, err := UnmarshalServerState(b)
	if err != nil {
		t.Fatal(err)
	}
	ke3, kc, _, err := cs.GenerateKE3(ke2, Identities{})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := restored.ServerFinish(ke3)
	if err != nil || !bytes.Equal(kc, ks) {
		t.Fatalf("ServerFinish from a restored state: %v", err)
	}
	if _, err := restored.MarshalBinary(); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("MarshalBinary after finishing: %v", err)
	}
	if _, err := UnmarshalServerState(b[:63]); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("63-byte state: %v", err)
	}
}
