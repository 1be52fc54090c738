package wgbench

import (
	"testing"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
)

// BenchmarkDerive is one Derive of the file source (HMAC-SHA256 in
// software): the hardware operation at its cheapest.
func BenchmarkDerive(b *testing.B) {
	src, err := newFileSource()
	if err != nil {
		b.Fatal(err)
	}
	r := deriveRow(src, [32]byte{1})
	benchRow(b, r)
}

// BenchmarkUpdate is one PSK update per mode with the file source, applied
// to a real in-process wireguard-go device (for fresh: both rotators' work
// and both devices), as the rows of Run.
func BenchmarkUpdate(b *testing.B) {
	tn, err := newTunnel()
	if err != nil {
		b.Fatal(err)
	}
	defer tn.close()
	var src keysource.Source
	if src, err = newFileSource(); err != nil {
		b.Fatal(err)
	}
	for _, m := range Modes {
		b.Run(m.String(), func(b *testing.B) {
			r, err := updateRow(src, m, tn)
			if err != nil {
				b.Fatal(err)
			}
			benchRow(b, r)
		})
	}
}

// BenchmarkSetPSK is the device's part of every update alone: one
// update-only IpcSet of a fixed PSK, to set against BenchmarkUpdate.
func BenchmarkSetPSK(b *testing.B) {
	tn, err := newTunnel()
	if err != nil {
		b.Fatal(err)
	}
	defer tn.close()
	psk := wg.PSK{1}
	b.ReportAllocs()
	for b.Loop() {
		if err := tn.a.SetPSK(tn.b.Pub, &psk); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRow(b *testing.B, r row) {
	b.ReportAllocs()
	c := &clock{}
	for b.Loop() {
		c.steps = c.steps[:0]
		if err := r.run(c); err != nil {
			b.Fatal(err)
		}
	}
}
