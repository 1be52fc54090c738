package pake

import (
	"fmt"
	"io"
)

// maxRounds bounds Run so that a faulty scheme cannot loop forever.
const maxRounds = 16

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
	parties := [2]Party{client, server}
	var in []byte
	for i := 0; ; i++ {
		if i >= maxRounds {
			return nil, nil, t, fmt.Errorf("%w: exchange did not finish in %d messages", ErrState, maxRounds)
		}
		from := Role(i % 2)
		p := parties[from]
		out, err := p.Next(in)
		if err != nil {
			return nil, nil, t, fmt.Errorf("%s at message %d: %w", from, i, err)
		}
		if out == nil {
			if !p.Done() {
				return nil, nil, t, fmt.Errorf("%w: %s sent nothing but is not done", ErrState, from)
			}
			if parties[1-from].Done() {
				break
			}
			return nil, nil, t, fmt.Errorf("%w: %s done, peer waiting", ErrState, from)
		}
		if hook != nil {
			out = hook(i, from, out)
		}
		t.Messages = append(t.Messages, out)
		in = out
	}
	if clientKey, err = client.SessionKey(); err != nil {
		return nil, nil, t, fmt.Errorf("client: %w", err)
	}
	if serverKey, err = server.SessionKey(); err != nil {
		return nil, nil, t, fmt.Errorf("server: %w", err)
	}
	return clientKey, serverKey, t, nil
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
