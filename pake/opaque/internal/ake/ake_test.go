package ake

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

// vector is one entry of the shared opaque/vectors.json (RFC 9807
// Appendix D): hex strings by name.
type vector struct {
	Config        map[string]string `json:"config"`
	Inputs        map[string]string `json:"inputs"`
	Intermediates map[string]string `json:"intermediates"`
	Outputs       map[string]string `json:"outputs"`
}

// realP256 returns the real P-256 vectors (RFC 9807 D.1.5 and D.1.6).
func realP256(t *testing.T) []vector {
	var all, vs []vector
	testvec.JSON(t, "opaque/vectors.json", &all)
	for _, v := range all {
		if v.Config["Group"] == "P256_XMD:SHA-256_SSWU_RO_" && v.Config["Fake"] != "True" {
			vs = append(vs, v)
		}
	}
	if len(vs) != 2 {
		t.Fatalf("%d real P-256 vectors, want 2", len(vs))
	}
	return vs
}

func get(t *testing.T, m map[string]string, name string) []byte {
	t.Helper()
	b, err := hex.DecodeString(m[name])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b
}

func point(t *testing.T, b []byte) *group.Point {
	t.Helper()
	p, err := group.NewPoint().SetBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVectorsServer replays the server's side of AuthServerRespond (§6.4.4)
// from the vectors' inputs and checks the keyshare, server_mac, client_mac
// (= KE3), session_key and the MAC keys.
func TestVectorsServer(t *testing.T) {
	for i, v := range realP256(t) {
		in, mid, out := v.Inputs, v.Intermediates, v.Outputs
		ke1, ke2 := get(t, out, "KE1"), get(t, out, "KE2")
		macAt := len(ke2) - sha256Size
		keyshareAt := macAt - group.CompressedPointSize

		secret, keyshare, err := DeriveDiffieHellmanKeyPair(get(t, in, "server_keyshare_seed"), true)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(keyshare, ke2[keyshareAt:macAt]) {
			t.Errorf("vector %d: server_public_keyshare = %x, want %x", i, keyshare, ke2[keyshareAt:macAt])
		}
		_, clientKeyshare, err := DeriveDiffieHellmanKeyPair(get(t, in, "client_keyshare_seed"), true)
		if err != nil {
			t.Fatal(err)
		}
		if want := ke1[len(ke1)-group.CompressedPointSize:]; !bytes.Equal(clientKeyshare, want) {
			t.Errorf("vector %d: client_public_keyshare = %x, want %x", i, clientKeyshare, want)
		}
		sk, err := group.NewScalar().SetCanonicalBytes(get(t, in, "server_private_key"))
		if err != nil {
			t.Fatal(err)
		}
		clientKey := get(t, mid, "client_public_key")
		ikm, err := TripleDH([3]*group.Scalar{secret, sk, secret},
			[3]*group.Point{point(t, clientKeyshare), point(t, clientKeyshare), point(t, clientKey)})
		if err != nil {
			t.Fatal(err)
		}
		clientID, serverID := get(t, in, "client_identity"), get(t, in, "server_identity")
		if len(clientID) == 0 {
			clientID = clientKey
		}
		if len(serverID) == 0 {
			serverID = get(t, in, "server_public_key")
		}
		serverMAC, clientMAC, sessionKey := KeySchedule(get(t, v.Config, "Context"), clientID, ke1, serverID, ke2[:macAt], ikm)
		for _, c := range []struct {
			name      string
			got, want []byte
		}{
			{"server_mac", serverMAC, ke2[macAt:]},
			{"client_mac", clientMAC, get(t, out, "KE3")},
			{"session_key", sessionKey, get(t, out, "session_key")},
			{"server_mac_key", ExpandLabel(get(t, mid, "handshake_secret"), "ServerMAC", nil), get(t, mid, "server_mac_key")},
			{"client_mac_key", ExpandLabel(get(t, mid, "handshake_secret"), "ClientMAC", nil), get(t, mid, "client_mac_key")},
		} {
			if !bytes.Equal(c.got, c.want) {
				t.Errorf("vector %d: %s = %x, want %x", i, c.name, c.got, c.want)
			}
		}
	}
}

const sha256Size = 32

// TestExpandLabelEncoding checks the info of Expand-Label against the
// encoding of §6.4.2 written out by hand.
func TestExpandLabelEncoding(t *testing.T) {
	secret := bytes.Repeat([]byte{7}, 32)
	info := append([]byte{0, 32, byte(len("OPAQUE-SessionKey"))}, "OPAQUE-SessionKey"...)
	info = append(append(info, 3), "abc"...)
	if got, want := ExpandLabel(secret, "SessionKey", []byte("abc")), Expand(secret, info, 32); !bytes.Equal(got, want) {
		t.Errorf("ExpandLabel = %x, want %x", got, want)
	}
}

// TestDiffieHellmanIdentity checks the identity guard of DiffieHellman
// with the zero scalar, which no caller passes.
func TestDiffieHellmanIdentity(t *testing.T) {
	if _, err := DiffieHellman(group.NewScalar(), group.NewGenerator()); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("DiffieHellman(0, G) = %v, want ErrInvalidMessage", err)
	}
	if _, err := TripleDH([3]*group.Scalar{group.NewScalar(), group.NewScalar(), group.NewScalar()},
		[3]*group.Point{group.NewGenerator(), group.NewGenerator(), group.NewGenerator()}); !errors.Is(err, pakeerr.ErrInvalidMessage) {
		t.Errorf("TripleDH with zero scalars = %v, want ErrInvalidMessage", err)
	}
}

func BenchmarkKeySchedule(b *testing.B) {
	ikm, ke1, ke2 := make([]byte, 99), make([]byte, 98), make([]byte, 227)
	for b.Loop() {
		KeySchedule([]byte("context"), []byte("alice"), ke1, []byte("bob"), ke2, ikm)
	}
}
