package envelope

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

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
func realP256(t testing.TB) []vector {
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

func get(t testing.TB, m map[string]string, name string) []byte {
	t.Helper()
	b, err := hex.DecodeString(m[name])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b
}

// TestVectors checks Store, Recover, MaskingKey, Keys and Mask against the
// intermediates and outputs of the vectors: the envelope, client public key
// and export_key of registration, masking_key and auth_key, and the
// masked_response inside KE2 (which starts after evaluated_message and
// masking_nonce).
func TestVectors(t *testing.T) {
	for i, v := range realP256(t) {
		in, mid, out := v.Inputs, v.Intermediates, v.Outputs
		eq := func(what string, got, want []byte) {
			t.Helper()
			if !bytes.Equal(got, want) {
				t.Errorf("vector %d: %s = %x, want %x", i, what, got, want)
			}
		}
		rwd, spk := get(t, mid, "randomized_password"), get(t, in, "server_public_key")
		sid, cid := get(t, in, "server_identity"), get(t, in, "client_identity")
		env, cpk, exportKey, err := Store(rwd, get(t, in, "envelope_nonce"), spk, sid, cid)
		if err != nil {
			t.Fatal(err)
		}
		eq("envelope", env, get(t, mid, "envelope"))
		eq("client_public_key", cpk, get(t, mid, "client_public_key"))
		eq("export_key", exportKey, get(t, out, "export_key"))
		eq("masking_key", MaskingKey(rwd), get(t, mid, "masking_key"))
		authKey, _, _ := Keys(rwd, get(t, in, "envelope_nonce"))
		eq("auth_key", authKey, get(t, mid, "auth_key"))

		r, err := Recover(rwd, spk, env, sid, cid)
		if err != nil {
			t.Fatalf("vector %d: Recover: %v", i, err)
		}
		eq("recovered export_key", r.ExportKey, get(t, out, "export_key"))
		if len(cid) == 0 {
			eq("defaulted client identity", r.ClientIdentity, cpk)
		}

		ke2 := get(t, out, "KE2")
		masked := Mask(MaskingKey(rwd), get(t, in, "masking_nonce"), append(bytes.Clone(spk), env...))
		eq("masked_response", masked, ke2[33+NonceSize:33+NonceSize+Masked])
		eq("unmasked", Mask(MaskingKey(rwd), get(t, in, "masking_nonce"), masked), append(bytes.Clone(spk), env...))
	}
}

// TestRecoverFails checks that a wrong password, a changed envelope, a
// changed identity or a wrong length is rejected.
func TestRecoverFails(t *testing.T) {
	v := realP256(t)[1]
	rwd, spk := get(t, v.Intermediates, "randomized_password"), get(t, v.Inputs, "server_public_key")
	sid, cid := get(t, v.Inputs, "server_identity"), get(t, v.Inputs, "client_identity")
	env := get(t, v.Intermediates, "envelope")
	flip := func(b []byte, i int) []byte { b = bytes.Clone(b); b[i] ^= 1; return b }
	for name, c := range map[string]struct {
		rwd, env, sid, cid []byte
		want               error
	}{
		"wrong password":  {flip(rwd, 0), env, sid, cid, pakeerr.ErrAuthFailed},
		"changed nonce":   {rwd, flip(env, 0), sid, cid, pakeerr.ErrAuthFailed},
		"changed tag":     {rwd, flip(env, Size-1), sid, cid, pakeerr.ErrAuthFailed},
		"other server id": {rwd, env, []byte("mallory"), cid, pakeerr.ErrAuthFailed},
		"other client id": {rwd, env, sid, []byte("mallory"), pakeerr.ErrAuthFailed},
		"short envelope":  {rwd, env[1:], sid, cid, pakeerr.ErrInvalidMessage},
	} {
		if _, err := Recover(c.rwd, spk, c.env, c.sid, c.cid); !errors.Is(err, c.want) {
			t.Errorf("%s: Recover = %v, want %v", name, err, c.want)
		}
	}
}

// FuzzRecover feeds Recover arbitrary envelopes (the client's unmasked
// input from the wire): it must never panic and must fail with a typed
// error, as only the real envelope authenticates.
func FuzzRecover(f *testing.F) {
	v := realP256(f)[1]
	rwd, spk := get(f, v.Intermediates, "randomized_password"), get(f, v.Inputs, "server_public_key")
	env := get(f, v.Intermediates, "envelope")
	f.Add(env[:len(env)-1])
	f.Add(make([]byte, Size))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := Recover(rwd, spk, b, []byte("bob"), []byte("alice"))
		if bytes.Equal(b, env) {
			return
		}
		if !errors.Is(err, pakeerr.ErrAuthFailed) && !errors.Is(err, pakeerr.ErrInvalidMessage) {
			t.Fatalf("Recover(%x) = %v", b, err)
		}
	})
}

func BenchmarkRecover(b *testing.B) {
	v := realP256(b)[0]
	rwd, spk := get(b, v.Intermediates, "randomized_password"), get(b, v.Inputs, "server_public_key")
	env := get(b, v.Intermediates, "envelope")
	for b.Loop() {
		if _, err := Recover(rwd, spk, env, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
