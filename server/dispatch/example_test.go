package dispatch_test

import (
	"context"
	"crypto"
	"errors"
	"log"
	"net/http"

	"github.com/kexlab/kexlab/pake/srp"
	"github.com/kexlab/kexlab/server/dispatch"
)

// The server step of an SRP login runs through the dispatcher; a full queue
// becomes 503 and a closed dispatcher (shutting down) too.
func Example() {
	p, _ := srp.NewParams(2048, crypto.SHA256)
	id, pw := []byte("alice"), []byte("password")
	rec, _ := srp.Register(nil, p, id, pw)
	c, _ := srp.NewClient(nil, p, id, pw)
	m1, _ := c.Next(nil)

	// At start-up: the cost of one step on the CPU, k of t = ⌈T/k⌉.
	probe := func() error {
		s, err := srp.NewServer(nil, p, id, rec)
		if err == nil {
			_, err = s.Next(m1)
		}
		return err
	}
	fit, err := dispatch.Calibrate(dispatch.CPU{}, probe, 8)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("cpu: %v", fit)
	d := dispatch.New(dispatch.Config{}, dispatch.CPU{Model: fit.Cost}, nil)
	defer d.Close()

	// In a handler:
	handle := func(ctx context.Context, m1 []byte) ([]byte, int) {
		var m2 []byte
		var s *srp.Server
		err := d.Do(ctx, func() error {
			var err error
			if s, err = srp.NewServer(nil, p, id, rec); err != nil {
				return err
			}
			m2, err = s.Next(m1)
			return err
		})
		switch {
		case errors.Is(err, dispatch.ErrOverloaded), errors.Is(err, dispatch.ErrClosed):
			return nil, http.StatusServiceUnavailable
		case errors.Is(err, dispatch.ErrBackend), errors.As(err, new(*dispatch.PanicError)):
			return nil, http.StatusInternalServerError
		case err != nil: // the client's message was refused, or ctx ended
			return nil, http.StatusBadRequest
		}
		// s's state goes to the store for message 3 (srp.ResumeServer).
		return m2, http.StatusOK
	}
	_, status := handle(context.Background(), m1)
	log.Print(status)
}
