package opaque

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// fixture is a registered client, through the wire encodings, with the
// identity KSF.
type fixture struct {
	cfg    Config
	client *Client
	server *Server
	record *RegistrationRecord
	export []byte
	cid    []byte
	ids    Identities
}

func newFixture(t testing.TB, password []byte, ids Identities) *fixture {
	t.Helper()
	return newFixtureKSF(t, Identity, password, ids)
}

func newFixtureKSF(t testing.TB, ksf KSF, password []byte, ids Identities) *fixture {
	t.Helper()
	f := &fixture{cfg: Config{Context: []byte("kexlab test"), KSF: ksf}, cid: []byte("user-1"), ids: ids}
	keys, err := GenerateServerKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if f.server, err = NewServer(f.cfg, keys); err != nil {
		t.Fatal(err)
	}
	if f.client, err = NewClient(f.cfg); err != nil {
		t.Fatal(err)
	}
	reg, req, err := f.client.CreateRegistrationRequest(rand.Reader, password)
	if err != nil {
		t.Fatal(err)
	}
	req, err = ParseRegistrationRequest(req.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := f.server.CreateRegistrationResponse(req, f.cid)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err = ParseRegistrationResponse(resp.Bytes()); err != nil {
		t.Fatal(err)
	}
	rec, export, err := reg.FinalizeRegistrationRequest(rand.Reader, resp, ids)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.FinalizeRegistrationRequest(rand.Reader, resp, ids); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("second FinalizeRegistrationRequest: %v, want ErrState", err)
	}
	if f.record, err = ParseRegistrationRecord(rec.Bytes()); err != nil {
		t.Fatal(err)
	}
	f.export = export
	return f
}

// login runs a login with password; hook may modify each message (index
// 0, 1, 2) in flight. It returns both keys and the client's export_key.
func (f *fixture) login(password []byte, hook func(i int, m []byte) []byte) (ck, sk, export []byte, err error) {
	if hook == nil {
		hook = func(_ int, m []byte) []byte { return m }
	}
	st, ke1, err := f.client.GenerateKE1(rand.Reader, password)
	if err != nil {
		return nil, nil, nil, err
	}
	ke1, err = ParseKE1(hook(0, ke1.Bytes()))
	if err != nil {
		return nil, nil, nil, err
	}
	sst, ke2, err := f.server.GenerateKE2(rand.Reader, f.record, f.cid, ke1, f.ids)
	if err != nil {
		return nil, nil, nil, err
	}
	if ke2, err = ParseKE2(hook(1, ke2.Bytes())); err != nil {
		return nil, nil, nil, err
	}
	ke3, ck, export, err := st.GenerateKE3(ke2, f.ids)
	if err != nil {
		return nil, nil, nil, err
	}
	if ke3, err = ParseKE3(hook(2, ke3.Bytes())); err != nil {
		return nil, nil, nil, err
	}
	sk, err = sst.ServerFinish(ke3)
	return ck, sk, export, err
}

var pw = []byte("correct horse battery staple")

func TestLogin(t *testing.T) {
	for _, ids := range []Identities{{}, {Client: []byte("alice")}, {Server: []byte("example.com")}, {Client: []byte("alice"), Server: []byte("example.com")}} {
		f := newFixture(t, pw, ids)
		ck, sk, export, err := f.login(pw, nil)
		if err != nil {
			t.Fatalf("identities %q: %v", ids, err)
		}
		if !bytes.Equal(ck, sk) || len(ck) != ake.Nx {
			t.Errorf("keys differ: %x %x", ck, sk)
		}
		if !bytes.Equal(export, f.export) {
			t.Errorf("export_key at login %x, at registration %x", export, f.export)
		}
		ck2, _, _, err := f.login(pw, nil)
		if err != nil || bytes.Equal(ck, ck2) {
			t.Errorf("second login: %v, same key %v", err, bytes.Equal(ck, ck2))
		}
	}
}

func TestWrongPassword(t *testing.T) {
	f := newFixture(t, pw, Identities{Client: []byte("alice"), Server: []byte("bob")})
	for _, wrong := range [][]byte{[]byte("correct horse battery stapler"), nil, pw[:1]} {
		if _, _, _, err := f.login(wrong, nil); !errors.Is(err, pakeerr.ErrAuthFailed) {
			t.Errorf("password %q: %v, want ErrAuthFailed", wrong, err)
		}
	}
	// Identities that differ from registration fail the same way.
	f.ids.Client = []byte("mallory")
	if _, _, _, err := f.login(pw, nil); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("other client identity: %v, want ErrAuthFailed", err)
	}
}

func TestFakeRecord(t *testing.T) {
	f := newFixture(t, pw, Identities{})
	fake, err := NewFakeRecord(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if env := fake.Bytes()[RegistrationRecordSize-protocol.EnvelopeSize:]; !bytes.Equal(env, make([]byte, protocol.EnvelopeSize)) {
		t.Errorf("fake envelope %x, want zeros", env)
	}
	f.record = fake
	if _, _, _, err := f.login(pw, nil); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("login against a fake record: %v, want ErrAuthFailed", err)
	}
}

// TestTamper flips every bit position class of every message: the run must
// fail with a typed error.
func TestTamper(t *testing.T) {
	f := newFixture(t, pw, Identities{Client: []byte("alice"), Server: []byte("bob")})
	for i, size := range []int{KE1Size, KE2Size, KE3Size} {
		for pos := 0; pos < size; pos++ {
			for _, bit := range []byte{0x01, 0x80} {
				_, _, _, err := f.login(pw, func(j int, m []byte) []byte {
					if j == i {
						m[pos] ^= bit
					}
					return m
				})
				if !errors.Is(err, pakeerr.ErrAuthFailed) && !errors.Is(err, pakeerr.ErrInvalidMessage) {
					t.Fatalf("message %d byte %d ^%#x: %v", i, pos, bit, err)
				}
			}
		}
	}
}

func TestStateReuse(t *testing.T) {
	f := newFixture(t, pw, Identities{})
	st, ke1, _ := f.client.GenerateKE1(rand.Reader, pw)
	sst, ke2, err := f.server.GenerateKE2(rand.Reader, f.record, f.cid, ke1, Identities{})
	if err != nil {
		t.Fatal(err)
	}
	ke3, _, _, err := st.GenerateKE3(ke2, Identities{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := st.GenerateKE3(ke2, Identities{}); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("second GenerateKE3: %v, want ErrState", err)
	}
	zeroMAC, _ := ParseKE3(make([]byte, KE3Size))
	if _, err := sst.ServerFinish(zeroMAC); !errors.Is(err, pakeerr.ErrAuthFailed) {
		t.Errorf("ServerFinish with a zero MAC: %v, want ErrAuthFailed", err)
	}
	if _, err := sst.ServerFinish(ke3); !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("ServerFinish after a failure: %v, want ErrState", err)
	}
}

func TestParameters(t *testing.T) {
	long := make([]byte, protocol.MaxLen+1)
	if _, err := NewClient(Config{Context: long}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("long context: %v", err)
	}
	c, _ := NewClient(Config{KSF: Identity})
	if _, _, err := c.GenerateKE1(rand.Reader, long); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("long password: %v", err)
	}
	if _, _, err := c.GenerateKE1(bytes.NewReader(make([]byte, 40)), pw); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("short randomness: %v", err)
	}
	if _, err := NewClientParty(rand.Reader, Config{}, pw, Identities{Client: long}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("long identity: %v", err)
	}
	failing := Config{KSF: func([]byte) ([]byte, error) { return nil, errors.New("out of memory") }}
	f := newFixture(t, pw, Identities{})
	f.client, _ = NewClient(failing)
	if _, _, _, err := f.login(pw, nil); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("failing KSF: %v", err)
	}

	st, ke1, _ := f.client.GenerateKE1(rand.Reader, pw)
	if _, _, err := f.server.GenerateKE2(rand.Reader, f.record, f.cid, ke1, Identities{Server: long}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("GenerateKE2 with a long server identity: %v", err)
	}
	_, ke2, err := f.server.GenerateKE2(rand.Reader, f.record, f.cid, ke1, Identities{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := st.GenerateKE3(ke2, Identities{Client: long}); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("GenerateKE3 with a long client identity: %v", err)
	}
	if _, err := GenerateServerKeys(bytes.NewReader(make([]byte, 63))); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("GenerateServerKeys with short randomness: %v", err)
	}
	if _, err := NewFakeRecord(bytes.NewReader(make([]byte, 48+31))); !errors.Is(err, pakeerr.ErrRandom) {
		t.Errorf("NewFakeRecord with short randomness: %v", err)
	}

	keys, _ := GenerateServerKeys(rand.Reader)
	if s, err := NewServer(Config{}, keys); err != nil || !bytes.Equal(s.PublicKey(), keys.PublicKey) {
		t.Errorf("NewServer: %v", err)
	}
	n := []byte{ // the order of P-256 (SEC 2 §2.4.2)
		0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
	}
	for name, k := range map[string]ServerKeys{
		"zero key":   {make([]byte, 32), keys.PublicKey, keys.OPRFSeed},
		"key = n":    {n, keys.PublicKey, keys.OPRFSeed},
		"short key":  {keys.PrivateKey[1:], keys.PublicKey, keys.OPRFSeed},
		"bad pk":     {keys.PrivateKey, append([]byte{0x04}, keys.PublicKey[1:]...), keys.OPRFSeed},
		"short seed": {keys.PrivateKey, keys.PublicKey, keys.OPRFSeed[1:]},
	} {
		if _, err := NewServer(Config{}, &k); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("NewServer with %s: %v", name, err)
		}
	}
}

// TestScrypt checks that the default KSF is the RFC 9807 §7 scrypt.
func TestScrypt(t *testing.T) {
	out, err := Scrypt([]byte("password"))
	if err != nil || len(out) != 32 {
		t.Fatalf("Scrypt: %x, %v", out, err)
	}
	c := Config{}
	rwd, err := protocol.RandomizedPassword(c.toProtocol().Stretch, []byte("password"))
	if err != nil {
		t.Fatal(err)
	}
	if want := ake.Extract(append([]byte("password"), out...)); !bytes.Equal(rwd, want) {
		t.Errorf("nil KSF is not Scrypt")
	}
}
