package kat

import (
	"fmt"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

// Party is the contract of pake.Party, repeated here because scheme
// packages sit below package pake and cannot import it.
type Party interface {
	Next(in []byte) (out []byte, err error)
	Done() bool
	SessionKey() ([]byte, error)
}

// MaxMessages bounds Run so that a faulty scheme cannot loop forever.
const MaxMessages = 16

// Run drives client and server to the end of an exchange: the client
// speaks first (Next(nil)), then they alternate until one has nothing to
// send and both are done. hook, when not nil, may observe or replace each
// message in flight (index i, fromServer); Run sends what it returns. It
// returns the messages sent and both session keys; an error from a party
// stops the run and is returned wrapped with the party and message index.
// pake.Run and the schemes' own known-answer tests share this loop.
func Run(client, server Party, hook func(i int, fromServer bool, msg []byte) []byte) (msgs [][]byte, clientKey, serverKey []byte, err error) {
	parties := [2]Party{client, server}
	names := [2]string{"client", "server"}
	var in []byte
	for i := 0; ; i++ {
		if i >= MaxMessages {
			return msgs, nil, nil, fmt.Errorf("%w: exchange did not finish in %d messages", pakeerr.ErrState, MaxMessages)
		}
		from := i % 2
		p := parties[from]
		out, err := p.Next(in)
		if err != nil {
			return msgs, nil, nil, fmt.Errorf("%s at message %d: %w", names[from], i, err)
		}
		if out == nil {
			if !p.Done() {
				return msgs, nil, nil, fmt.Errorf("%w: %s sent nothing but is not done", pakeerr.ErrState, names[from])
			}
			if parties[1-from].Done() {
				break
			}
			return msgs, nil, nil, fmt.Errorf("%w: %s done, peer waiting", pakeerr.ErrState, names[from])
		}
		if hook != nil {
			out = hook(i, from == 1, out)
		}
		msgs = append(msgs, out)
		in = out
	}
	if clientKey, err = client.SessionKey(); err != nil {
		return msgs, nil, nil, fmt.Errorf("client: %w", err)
	}
	if serverKey, err = server.SessionKey(); err != nil {
		return msgs, nil, nil, fmt.Errorf("server: %w", err)
	}
	return msgs, clientKey, serverKey, nil
}
