package wgbench

import (
	"crypto/rand"
	"fmt"
	"net/netip"
	"time"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/wgdev"
)

// row is one measured thing: run performs one sample, marking its steps on
// the clock it is given.
type row struct {
	name string
	run  func(c *clock) error
}

// newFileSource returns the file source every run measures: a random key
// in memory, named FileSourceName.
func newFileSource() (*keysource.File, error) {
	var key [keysource.KeySize]byte
	if _, err := rand.Read(key[:]); err != nil {
		return nil, fmt.Errorf("wgbench: reading randomness: %w", err)
	}
	s := keysource.NewFile(key, FileSourceName)
	clear(key[:])
	return s, nil
}

// tunnel is the two peers of a tunnel, each an in-process wireguard-go
// device (wgdev.NetstackDevice, UDP on 127.0.0.1) with the other as its
// only peer. Single-rotator updates are applied on a, for peer b; fresh
// mode's responder applies its PSK on its own device.
type tunnel struct {
	a, b *wgdev.NetstackDevice
	pair [32]byte
}

func newTunnel() (*tunnel, error) {
	a, b, err := wgdev.NewLoopbackPair(netip.MustParseAddr("10.7.0.1"), netip.MustParseAddr("10.7.0.2"))
	if err != nil {
		return nil, fmt.Errorf("wgbench: wireguard-go devices: %w", err)
	}
	return &tunnel{a: a, b: b, pair: wg.PairID(a.Pub, b.Pub)}, nil
}

func (t *tunnel) close() {
	t.a.Close()
	t.b.Close()
}

// deriveRow is one Derive of the hardware ratchet's first input.
func deriveRow(src keysource.Source, pair [32]byte) row {
	input := wg.HardwareRatchetInput(pair, 0, 1, [32]byte{})
	return row{name: DeriveName(src.Name()), run: func(*clock) error {
		out, err := src.Derive(input)
		clear(out[:])
		return err
	}}
}

// updateRow is one PSK update of mode m with src, as a rotator performs it
// after a handshake: compute the next PSK, apply it to the device. Every
// chain starts at epoch 0 and its state stays in memory.
func updateRow(src keysource.Source, m wg.Mode, t *tunnel) (row, error) {
	name := UpdateName(m, src.Name())
	switch m {
	case wg.Timestamp, wg.HashRatchet, wg.HardwareRatchet:
	case wg.Fresh:
		return freshRow(src, t)
	default:
		return row{}, fmt.Errorf("%w: mode %v", ErrConfig, m)
	}
	st := wg.NewState(m)
	var cur wg.PSK
	if m != wg.Timestamp {
		var err error
		if cur, err = wg.StartChain(src, t.pair, &st, 0); err != nil {
			return row{}, err
		}
	}
	dev := t.a.GoDevice
	return row{name: name, run: func(c *clock) error {
		var next wg.PSK
		var err error
		switch m {
		case wg.Timestamp:
			next, err = wg.TimestampPSK(src, t.pair, time.Now())
		case wg.HashRatchet:
			if st.Index >= wg.MaxHashRatchetIndex { // a daemon starts a new epoch
				cur.Zero()
				cur, err = wg.StartChain(src, t.pair, &st, st.Epoch+1)
			}
			if err == nil {
				next, err = wg.HashStep(&cur, &st)
			}
		default:
			next, err = wg.Step(src, t.pair, &st, nil)
		}
		if err != nil {
			return err
		}
		cur.Zero()
		cur = next
		c.mark("rotator", "psk")
		err = dev.SetPSK(t.b.Pub, &cur)
		c.mark("rotator", "set")
		return err
	}}, nil
}

// freshRow is one whole fresh-mode step, both rotators' work: the
// ML-KEM-768 exchange, then on each side wg.Step and the IpcSet. The two
// PSKs are checked to agree (through their hashes, which the states hold).
func freshRow(src keysource.Source, t *tunnel) (row, error) {
	ini, res := t.a, t.b
	if !wg.Initiator(ini.Pub, res.Pub) {
		ini, res = res, ini
	}
	stI, stR := wg.NewState(wg.Fresh), wg.NewState(wg.Fresh)
	p, err := wg.StartChain(src, t.pair, &stI, 0)
	p.Zero()
	if err != nil {
		return row{}, err
	}
	if p, err = wg.StartChain(src, t.pair, &stR, 0); err != nil {
		return row{}, err
	}
	p.Zero()
	return row{name: UpdateName(wg.Fresh, src.Name()), run: func(c *clock) error {
		offer, msg, err := wg.NewOffer(rand.Reader, stI.Epoch, stI.Index+1)
		if err != nil {
			return err
		}
		c.mark("initiator", "offer")
		answer, freshR, err := wg.Answer(msg, stR.Epoch, stR.Index+1)
		if err != nil {
			return err
		}
		c.mark("responder", "answer")
		freshI, err := offer.Finish(answer)
		if err != nil {
			clear(freshR[:])
			return err
		}
		c.mark("initiator", "finish")
		pI, err := wg.Step(src, t.pair, &stI, &freshI)
		clear(freshI[:])
		if err != nil {
			clear(freshR[:])
			return err
		}
		defer pI.Zero()
		c.mark("initiator", "psk")
		pR, err := wg.Step(src, t.pair, &stR, &freshR)
		clear(freshR[:])
		if err != nil {
			return err
		}
		defer pR.Zero()
		c.mark("responder", "psk")
		if stI.LastHash != stR.LastHash {
			return fmt.Errorf("%w: the two sides derived different PSKs", wg.ErrDesync)
		}
		if err := ini.SetPSK(res.Pub, &pI); err != nil {
			return err
		}
		c.mark("initiator", "set")
		err = res.SetPSK(ini.Pub, &pR)
		c.mark("responder", "set")
		return err
	}}, nil
}
