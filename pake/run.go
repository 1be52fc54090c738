package pake

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/kat"
)

// Transcript is what one exchange put on the wire.
type Transcript struct {
	Messages [][]byte // in order; even indices from the client, odd from the server
}

// Bytes returns the total number of bytes sent by both parties.
func (t Transcript) Bytes() int {
	n := 0
	for _, m := range t.Messages {
		n += len(m)
	}
	return n
}

// Hook, when not nil, may observe or replace each message in flight (index i,
// sender from); Run sends what it returns. Tests use it to tamper.
type Hook func(i int, from Role, msg []byte) []byte

// Run drives client and server to the end of an exchange: the client speaks
// first, then they alternate until neither has anything to send. It returns
// both session keys and the transcript. An error from either party stops the
// run and is returned wrapped with the party and message index.
func Run(client, server Party, hook Hook) (clientKey, serverKey []byte, t Transcript, err error) {
	var h func(int, bool, []byte) []byte
	if hook != nil {
		h = func(i int, fromServer bool, msg []byte) []byte {
			from := Client
			if fromServer {
				from = Server
			}
			return hook(i, from, msg)
		}
	}
	t.Messages, clientKey, serverKey, err = kat.Run(client, server, h)
	return clientKey, serverKey, t, err
}

// Exchange registers (for augmented schemes), creates both parties and runs
// them to the end with the same credentials on both sides.
func Exchange(s Scheme, rand io.Reader, c Credentials) (clientKey, serverKey []byte, t Transcript, err error) {
	record, err := s.Register(rand, c)
	if err != nil {
		return nil, nil, t, fmt.Errorf("register: %w", err)
	}
	cl, err := s.NewClient(rand, c)
	if err != nil {
		return nil, nil, t, fmt.Errorf("client: %w", err)
	}
	sv, err := s.NewServer(rand, c, record)
	if err != nil {
		return nil, nil, t, fmt.Errorf("server: %w", err)
	}
	return Run(cl, sv, nil)
}
