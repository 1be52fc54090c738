// Package vectors holds the P-256 test vectors of RFC 9807 Appendix D
// (D.1.5, D.1.6 real, D.2.3 fake) and replays them through package
// protocol as known-answer tests compiled into the binary. The server's
// key pair is imported from its private key alone (protocol.PublicKey)
// and must give the vector's public key, as another implementation's
// keys would be.
package vectors

import (
	"bytes"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// vectorsJSON holds the P-256 entries of poc/vectors/vectors.json of
// cfrg/draft-irtf-cfrg-opaque (commit 78597fc8), which are RFC 9807
// Appendix D.1.5 and D.1.6 (real) and D.2.3 (fake), unchanged.
//
//go:embed testdata/vectors_p256.json
var vectorsJSON []byte

// vector is one entry of vectors.json: hex strings by name.
type vector struct {
	Config        map[string]string `json:"config"`
	Inputs        map[string]string `json:"inputs"`
	Intermediates map[string]string `json:"intermediates"`
	Outputs       map[string]string `json:"outputs"`
}

// Identity is the key stretching function of the test vectors (RFC 9807
// Appendix D): Stretch(msg) = msg.
func Identity(msg []byte) ([]byte, error) { return bytes.Clone(msg), nil }

// KnownAnswerTests returns the RFC 9807 P-256 test vectors as tests: each
// real vector replays registration and login from the given blinds, nonces
// and seeds and compares every message, export_key and session_key; the fake
// vector builds the fake record and compares KE2.
func KnownAnswerTests() []kat.Test {
	var vs []vector
	if err := json.Unmarshal(vectorsJSON, &vs); err != nil {
		return []kat.Test{{Name: "RFC 9807 App. D: embedded vectors", Run: func() error { return err }}}
	}
	var tests []kat.Test
	nReal, nFake := 5, 3 // the P-256 vectors are real vectors 5 and 6 and fake vector 3
	for _, v := range vs {
		v := v
		name := fmt.Sprintf("RFC 9807 App. D.1.%d (real, P-256)", nReal)
		if v.Config["Fake"] == "True" {
			name = fmt.Sprintf("RFC 9807 App. D.2.%d (fake, P-256)", nFake)
			nFake++
		} else {
			nReal++
		}
		tests = append(tests, kat.Test{Name: name, Run: func() error { return runVector(v) }})
	}
	return tests
}

// hexMap decodes named hex values, remembering the first error. A missing
// name gives nil (an absent identity).
type hexMap struct {
	m   map[string]string
	err error
}

func (h *hexMap) get(name string) []byte {
	b, err := hex.DecodeString(h.m[name])
	if err != nil && h.err == nil {
		h.err = fmt.Errorf("vector field %s: %v", name, err)
	}
	return b
}

// replay returns a reader with the given values, for the rand arguments.
// Scalars drawn with group.RandomScalar take 16 zero bytes and the value.
func replay(values ...[]byte) *bytes.Reader { return bytes.NewReader(bytes.Join(values, nil)) }

func scalarReplay(s []byte) []byte { return append(make([]byte, 16), s...) }

func check(what string, got, want []byte) error {
	if !bytes.Equal(got, want) {
		return kat.Mismatch(what, got, want)
	}
	return nil
}

func runVector(v vector) error {
	if v.Config["OPRF"] != "P256-SHA256" || v.Config["KSF"] != "Identity" {
		return fmt.Errorf("unsupported configuration %v", v.Config)
	}
	in, out := &hexMap{m: v.Inputs}, &hexMap{m: v.Outputs}
	cfg := protocol.Config{Context: (&hexMap{m: v.Config}).get("Context"), Stretch: Identity}
	sk, seed := in.get("server_private_key"), in.get("oprf_seed")
	ids, credID := protocol.Identities{Client: in.get("client_identity"), Server: in.get("server_identity")}, in.get("credential_identifier")
	ke2Random := replay(in.get("masking_nonce"), in.get("server_nonce"), in.get("server_keyshare_seed"))
	if in.err != nil {
		return in.err
	}
	pk, err := protocol.PublicKey(sk)
	if err != nil {
		return err
	}
	if err := check("server_public_key from server_private_key", pk, in.get("server_public_key")); err != nil {
		return err
	}
	server, err := protocol.NewServer(cfg.Context, sk, pk, seed)
	if err != nil {
		return err
	}

	if v.Config["Fake"] == "True" {
		ke1, err := protocol.ParseKE1(in.get("KE1"))
		if err != nil {
			return err
		}
		record, err := protocol.NewFakeRecord(replay(scalarReplay(in.get("client_private_key")), in.get("masking_key")))
		if err != nil {
			return err
		}
		if err := check("fake client_public_key", record.ClientPublicKey(), in.get("client_public_key")); err != nil {
			return err
		}
		_, ke2, err := server.GenerateKE2(ke2Random, record, credID, ke1, ids)
		if err != nil {
			return err
		}
		return check("KE2", ke2.Bytes(), out.get("KE2"))
	}

	client, err := protocol.NewClient(cfg)
	if err != nil {
		return err
	}
	password := in.get("password")
	reg, req, err := client.CreateRegistrationRequest(replay(scalarReplay(in.get("blind_registration"))), password)
	if err != nil {
		return err
	}
	resp, err := server.CreateRegistrationResponse(req, credID)
	if err != nil {
		return err
	}
	record, regExportKey, err := reg.FinalizeRegistrationRequest(replay(in.get("envelope_nonce")), resp, ids)
	if err != nil {
		return err
	}
	st, ke1, err := client.GenerateKE1(replay(scalarReplay(in.get("blind_login")), in.get("client_nonce"), in.get("client_keyshare_seed")), password)
	if err != nil {
		return err
	}
	sst, ke2, err := server.GenerateKE2(ke2Random, record, credID, ke1, ids)
	if err != nil {
		return err
	}
	ke3, clientKey, exportKey, err := st.GenerateKE3(ke2, ids)
	if err != nil {
		return err
	}
	serverKey, err := sst.ServerFinish(ke3)
	if err != nil {
		return err
	}
	for _, r := range []struct {
		name string
		got  []byte
	}{
		{"registration_request", req.Bytes()}, {"registration_response", resp.Bytes()},
		{"registration_upload", record.Bytes()}, {"export_key", regExportKey},
		{"KE1", ke1.Bytes()}, {"KE2", ke2.Bytes()}, {"KE3", ke3.Bytes()},
		{"session_key", clientKey}, {"export_key", exportKey}, {"session_key", serverKey},
	} {
		if err := check(r.name, r.got, out.get(r.name)); err != nil {
			return err
		}
	}
	return out.err
}
