package opaque

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/kexlab/kexlab/internal/testvec"
)

// rfcVector is one entry of the shared vectors.json (cfrg/draft-irtf-cfrg-opaque
// poc/vectors, the vectors of RFC 9807 Appendix D): hex strings by name.
type rfcVector struct {
	Config  map[string]string `json:"config"`
	Inputs  map[string]string `json:"inputs"`
	Outputs map[string]string `json:"outputs"`
}

// p256Vectors returns the P-256 entries of the shared file, named by their
// RFC 9807 section: real vectors D.1.5 (no identities) and D.1.6
// (identities), fake vector D.2.3.
func p256Vectors(t *testing.T) map[string]rfcVector {
	t.Helper()
	var all []rfcVector
	testvec.JSON(t, "opaque/vectors.json", &all)
	out := map[string]rfcVector{}
	for _, v := range all {
		if v.Config["OPRF"] != "P256-SHA256" {
			continue
		}
		switch {
		case v.Config["Fake"] == "True":
			out["D.2.3"] = v
		case v.Inputs["client_identity"] == "":
			out["D.1.5"] = v
		default:
			out["D.1.6"] = v
		}
	}
	if len(out) != 3 {
		t.Fatalf("%d P-256 vectors in the shared file, want D.1.5, D.1.6 and D.2.3", len(out))
	}
	return out
}

// hexOf decodes a vector field; an absent field is nil.
func hexOf(t *testing.T, m map[string]string, name string) []byte {
	t.Helper()
	b, err := hex.DecodeString(m[name])
	if err != nil {
		t.Fatalf("vector field %s: %v", name, err)
	}
	if len(b) == 0 {
		return nil
	}
	return b
}

// replay returns the given values as randomness. A scalar drawn with
// group.RandomScalar (48 bytes reduced mod n) replays as 16 zero bytes and
// the scalar.
func replay(values ...[]byte) *bytes.Reader { return bytes.NewReader(bytes.Join(values, nil)) }

func scalar(s []byte) []byte { return append(make([]byte, 16), s...) }

// TestImportVectorServerKeys imports each P-256 vector's server key pair
// from its private key alone (NewServerKeys, ServerPublicKey), checks the
// derived public key against the vector's, and replays registration and
// login through the public API: every message, export_key and session_key
// must be the vector's.
func TestImportVectorServerKeys(t *testing.T) {
	for name, v := range p256Vectors(t) {
		t.Run(name, func(t *testing.T) {
			in := func(n string) []byte { return hexOf(t, v.Inputs, n) }
			want := func(what, n string, got []byte) {
				t.Helper()
				if w := hexOf(t, v.Outputs, n); !bytes.Equal(got, w) {
					t.Errorf("%s: got %x, want %x", what, got, w)
				}
			}
			pk, err := ServerPublicKey(in("server_private_key"))
			if err != nil || !bytes.Equal(pk, in("server_public_key")) {
				t.Fatalf("ServerPublicKey = %x, %v; want %x", pk, err, in("server_public_key"))
			}
			keys, err := NewServerKeys(in("server_private_key"), in("oprf_seed"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(keys.PublicKey, in("server_public_key")) {
				t.Fatalf("NewServerKeys: public key %x, want %x", keys.PublicKey, in("server_public_key"))
			}
			cfg := Config{Context: hexOf(t, v.Config, "Context"), KSF: Identity}
			server, err := NewServer(cfg, keys)
			if err != nil {
				t.Fatal(err)
			}
			ids := Identities{Client: in("client_identity"), Server: in("server_identity")}
			cid := in("credential_identifier")
			ke2Rand := replay(in("masking_nonce"), in("server_nonce"), in("server_keyshare_seed"))

			if v.Config["Fake"] == "True" {
				fake, err := NewFakeRecord(replay(scalar(in("client_private_key")), in("masking_key")))
				if err != nil {
					t.Fatal(err)
				}
				// The record starts with client_public_key, Npk = 33 bytes (§5.1, §7).
				if got := fake.Bytes()[:33]; !bytes.Equal(got, in("client_public_key")) {
					t.Errorf("fake client_public_key %x, want %x", got, in("client_public_key"))
				}
				ke1, err := ParseKE1(in("KE1"))
				if err != nil {
					t.Fatal(err)
				}
				_, ke2, err := server.GenerateKE2(ke2Rand, fake, cid, ke1, ids)
				if err != nil {
					t.Fatal(err)
				}
				want("KE2", "KE2", ke2.Bytes())
				return
			}

			client, err := NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			password := in("password")
			reg, req, err := client.CreateRegistrationRequest(replay(scalar(in("blind_registration"))), password)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := server.CreateRegistrationResponse(req, cid)
			if err != nil {
				t.Fatal(err)
			}
			record, regExport, err := reg.FinalizeRegistrationRequest(replay(in("envelope_nonce")), resp, ids)
			if err != nil {
				t.Fatal(err)
			}
			st, ke1, err := client.GenerateKE1(replay(scalar(in("blind_login")), in("client_nonce"), in("client_keyshare_seed")), password)
			if err != nil {
				t.Fatal(err)
			}
			sst, ke2, err := server.GenerateKE2(ke2Rand, record, cid, ke1, ids)
			if err != nil {
				t.Fatal(err)
			}
			ke3, clientKey, export, err := st.GenerateKE3(ke2, ids)
			if err != nil {
				t.Fatal(err)
			}
			serverKey, err := sst.ServerFinish(ke3)
			if err != nil {
				t.Fatal(err)
			}
			want("registration_request", "registration_request", req.Bytes())
			want("registration_response", "registration_response", resp.Bytes())
			want("registration_upload", "registration_upload", record.Bytes())
			want("export_key at registration", "export_key", regExport)
			want("KE1", "KE1", ke1.Bytes())
			want("KE2", "KE2", ke2.Bytes())
			want("KE3", "KE3", ke3.Bytes())
			want("client session_key", "session_key", clientKey)
			want("server session_key", "session_key", serverKey)
			want("export_key at login", "export_key", export)
		})
	}
}
