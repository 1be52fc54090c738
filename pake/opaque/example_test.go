package opaque_test

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/kexlab/kexlab/pake/opaque"
)

// Registration and login with the typed API. The identities go in one
// Identities value, the same at registration and at every login; a nil
// rand means crypto/rand.
func Example() {
	cfg := opaque.Config{Context: []byte("example app v1")} // KSF: scrypt
	ids := opaque.Identities{Client: []byte("alice"), Server: []byte("example.com")}
	credentialID := []byte("alice")
	password := []byte("correct horse battery staple")

	keys, _ := opaque.GenerateServerKeys(nil)
	server, _ := opaque.NewServer(cfg, keys)
	client, _ := opaque.NewClient(cfg)

	// Registration (RFC 9807 §5): request, response, record.
	reg, request, _ := client.CreateRegistrationRequest(nil, password)
	response, _ := server.CreateRegistrationResponse(request, credentialID)
	record, _, _ := reg.FinalizeRegistrationRequest(nil, response, ids)

	// Login (§6): KE1, KE2, KE3.
	st, ke1, _ := client.GenerateKE1(nil, password)
	sst, ke2, _ := server.GenerateKE2(nil, record, credentialID, ke1, ids)
	ke3, clientKey, _, err := st.GenerateKE3(ke2, ids)
	if err != nil {
		fmt.Println(err)
		return
	}
	serverKey, err := sst.ServerFinish(ke3)
	fmt.Println(err, bytes.Equal(clientKey, serverKey))
	// Output: <nil> true
}

// Importing the server keys of another RFC 9807 implementation (P-256,
// SHA-256): the 32-byte big-endian private key and oprf_seed are enough;
// the public key is derived from the private key. These are the keys of
// the RFC 9807 Appendix D.1.5 vector.
func ExampleNewServerKeys() {
	sk := fromHex("c36139381df63bfc91c850db0b9cfbec7a62e86d80040a41aa7725bf0e79d5e5")
	seed := fromHex("62f60b286d20ce4fd1d64809b0021dad6ed5d52a2c8cf27ae6582543a0a8dce2")
	keys, err := opaque.NewServerKeys(sk, seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%x\n", keys.PublicKey)
	// Output: 035f40ff9cf88aa1f5cd4fe5fd3da9ea65a4923a5594f84fd9f2092d6067784874
}

func fromHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}
