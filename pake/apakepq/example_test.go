package apakepq_test

import (
	"bytes"
	"fmt"

	"github.com/kexlab/kexlab/pake/apakepq"
)

func Example() {
	s := apakepq.Session{ClientID: []byte("alice"), ServerID: []byte("server"), Context: []byte("login 1")}

	// Registration, on the client: the server keeps the record, not the password.
	rec, _ := apakepq.Register([]byte("password"), s.ClientID, s.ServerID, 1000)
	stored := rec.Bytes()

	// Login.
	client, _ := apakepq.NewClient(nil, []byte("password"), s, 1000)
	r, _ := apakepq.ParseRecord(stored)
	server, _ := apakepq.NewServer(nil, r, s)
	m1, _ := client.Next(nil)
	m2, _ := server.Next(m1)
	m3, _ := client.Next(m2)
	if _, err := server.Next(m3); err != nil {
		fmt.Println(err)
		return
	}
	kc, _ := client.SessionKey()
	ks, _ := server.SessionKey()
	fmt.Println(len(stored), len(m1), len(m2), len(m3), bytes.Equal(kc, ks))
	// Output: 832 832 1596 32 true
}
