package ocake_test

import (
	"bytes"
	"fmt"

	"github.com/kexlab/kexlab/pake/ocake"
)

func Example() {
	s := ocake.Session{ClientID: []byte("alice"), ServerID: []byte("bob"), Context: []byte("session 1")}
	// Each side derives the password key (PBKDF2, once per pair).
	keyA, _ := ocake.DeriveKey([]byte("password"), s.ClientID, s.ServerID, 1000)
	keyB, _ := ocake.DeriveKey([]byte("password"), s.ClientID, s.ServerID, 1000)

	alice, _ := ocake.NewInitiator(nil, keyA, s)
	bob, _ := ocake.NewResponder(nil, keyB, s)
	m1, _ := alice.Next(nil) // apk
	m2, _ := bob.Next(m1)    // c ‖ Auth
	if _, err := alice.Next(m2); err != nil {
		fmt.Println(err)
		return
	}
	ka, _ := alice.SessionKey()
	kb, _ := bob.SessionKey()
	fmt.Println(len(m1), len(m2), bytes.Equal(ka, kb))
	// Output: 832 800 true
}
