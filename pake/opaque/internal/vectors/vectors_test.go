package vectors

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/oprf"
	"github.com/kexlab/kexlab/internal/testvec"
	"github.com/kexlab/kexlab/pake/opaque/internal/ake"
	"github.com/kexlab/kexlab/pake/opaque/internal/envelope"
	"github.com/kexlab/kexlab/pake/opaque/internal/protocol"
)

// sharedP256Vectors reads the shared vectors.json and keeps the P-256
// entries.
func sharedP256Vectors(t *testing.T) []vector {
	var all []vector
	testvec.JSON(t, "opaque/vectors.json", &all)
	var p256 []vector
	for _, v := range all {
		if v.Config["Group"] == "P256_XMD:SHA-256_SSWU_RO_" {
			p256 = append(p256, v)
		}
	}
	if len(p256) != 3 {
		t.Fatalf("%d P-256 vectors in the shared file, want 3 (2 real, 1 fake)", len(p256))
	}
	return p256
}

func TestVectors(t *testing.T) {
	for i, v := range sharedP256Vectors(t) {
		if err := runVector(v); err != nil {
			t.Errorf("vector %d (fake=%s): %v", i, v.Config["Fake"], err)
		}
	}
}

// TestVectorIntermediates checks the intermediate values of the real
// vectors against the functions that compute them.
func TestVectorIntermediates(t *testing.T) {
	for i, v := range sharedP256Vectors(t) {
		if v.Config["Fake"] == "True" {
			continue
		}
		in, mid, out := &hexMap{m: v.Inputs}, &hexMap{m: v.Intermediates}, &hexMap{m: v.Outputs}
		k, err := protocol.OPRFKey(in.get("oprf_seed"), in.get("credential_identifier"))
		if err != nil {
			t.Fatal(err)
		}
		eq := func(what string, got, want []byte) {
			t.Helper()
			if !bytes.Equal(got, want) {
				t.Errorf("vector %d: %s = %x, want %x", i, what, got, want)
			}
		}
		eq("oprf_key", k.Bytes(), mid.get("oprf_key"))

		// randomized_password from the registration response (§5.2.3).
		blindReg, err := group.NewScalar().SetCanonicalBytes(in.get("blind_registration"))
		if err != nil {
			t.Fatal(err)
		}
		z, err := oprf.DeserializeElement(out.get("registration_response")[:protocol.Noe])
		if err != nil {
			t.Fatal(err)
		}
		oprfOutput, err := oprf.Finalize(in.get("password"), blindReg, z)
		if err != nil {
			t.Fatal(err)
		}
		rwd, err := protocol.RandomizedPassword(Identity, oprfOutput)
		if err != nil {
			t.Fatal(err)
		}
		eq("randomized_password", rwd, mid.get("randomized_password"))
		eq("masking_key", ake.Expand(rwd, []byte("MaskingKey"), protocol.Nh), mid.get("masking_key"))
		authKey, _, seed := envelope.Keys(rwd, in.get("envelope_nonce"))
		eq("auth_key", authKey, mid.get("auth_key"))
		_, pk, err := ake.DeriveDiffieHellmanKeyPair(seed, true)
		if err != nil {
			t.Fatal(err)
		}
		eq("client_public_key", pk, mid.get("client_public_key"))
		eq("envelope", out.get("registration_upload")[protocol.Npk+protocol.Nh:], mid.get("envelope"))

		// The MAC keys come from handshake_secret by Expand-Label (§6.4.2).
		hs := mid.get("handshake_secret")
		eq("server_mac_key", ake.ExpandLabel(hs, "ServerMAC", nil), mid.get("server_mac_key"))
		eq("client_mac_key", ake.ExpandLabel(hs, "ClientMAC", nil), mid.get("client_mac_key"))
		if in.err != nil || mid.err != nil || out.err != nil {
			t.Fatal(in.err, mid.err, out.err)
		}
	}
}

// TestVectorMismatch checks that runVector notices a wrong expected value.
func TestVectorMismatch(t *testing.T) {
	for _, v := range sharedP256Vectors(t) {
		for name := range v.Outputs {
			w := v
			w.Outputs = maps.Clone(v.Outputs)
			w.Outputs[name] = strings.Repeat("00", len(v.Outputs[name])/2)
			if runVector(w) == nil {
				t.Errorf("vector (fake=%s) with %s changed passed", v.Config["Fake"], name)
			}
		}
	}
}

// TestEmbeddedVectors checks that testdata holds exactly the P-256 entries
// of the shared file.
func TestEmbeddedVectors(t *testing.T) {
	var embedded []vector
	if err := json.Unmarshal(vectorsJSON, &embedded); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(embedded, sharedP256Vectors(t)) {
		t.Error("testdata/vectors_p256.json differs from the P-256 entries of the shared vectors.json")
	}
	for _, k := range KnownAnswerTests() {
		if err := k.Run(); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}
