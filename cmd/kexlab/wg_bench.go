package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"

	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11"
	"github.com/kexlab/kexlab/wg/keysource/tpm"
	"github.com/kexlab/kexlab/wg/rotator"
)

type wgBenchRow struct {
	What    string        `json:"what"`
	Summary stats.Summary `json:"ns"`
}

func cmdWGBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg bench", stderr)
	n := fs.Int("n", 200, "samples per measurement")
	jsonPath := fs.String("json", "", "write the results as JSON to this file")
	sf := addSourceFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 2 {
		return fmt.Errorf("%w: -n must be at least 2", errUsage)
	}
	var key [32]byte
	rand.Read(key[:])
	sources := []keysource.Source{keysource.NewFile(key, "file")}
	if *sf.keyFile != "" {
		s, err := keysource.OpenFile(*sf.keyFile)
		if err != nil {
			return err
		}
		sources = append(sources, s)
	}
	if *sf.p11Module != "" {
		s, err := p11.Open(sf.p11Config())
		if err != nil {
			return err
		}
		sources = append(sources, s)
	}
	if *sf.tpmDev != "" {
		s, err := tpm.OpenFile(*sf.tpmDev, *sf.tpmBlob)
		if err != nil {
			return err
		}
		sources = append(sources, s)
	}
	defer func() {
		for _, s := range sources {
			s.Close()
		}
	}()
	var rows []wgBenchRow
	add := func(what string, f func() error) error {
		xs := make([]float64, *n)
		for i := range xs {
			t := time.Now()
			if err := f(); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			xs[i] = float64(time.Since(t).Nanoseconds())
		}
		s, err := stats.Summarize(xs)
		if err != nil {
			return err
		}
		rows = append(rows, wgBenchRow{What: what, Summary: s})
		fmt.Fprintf(stdout, "%-34s n=%d median=%.0f ns IQR=%.0f ns\n", what, s.N, s.Median, s.IQR)
		return nil
	}
	input := make([]byte, 128)
	for _, src := range sources {
		if err := add("derive "+src.Name(), func() error {
			out, err := src.Derive(input)
			clear(out[:])
			return err
		}); err != nil {
			return err
		}
	}
	// One PSK update per mode: compute the next PSK and apply it to an
	// in-process wireguard-go device (IpcSet), as the rotator does.
	var self, peer [32]byte
	rand.Read(self[:])
	rand.Read(peer[:])
	d, err := rotator.NewNetstackDevice(self, netip.MustParseAddr("10.7.0.1"), 0)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.AddPeer(peer, netip.MustParseAddrPort("127.0.0.1:9"), netip.MustParseAddr("10.7.0.2")); err != nil {
		return err
	}
	for _, src := range sources {
		for _, m := range []wg.Mode{wg.Timestamp, wg.HashRatchet, wg.HardwareRatchet} {
			upd, err := rotator.BenchUpdate(src, m, self, peer, d.GoDevice)
			if err != nil {
				return err
			}
			if err := add(fmt.Sprintf("update %v %s", m, src.Name()), upd); err != nil {
				return err
			}
		}
	}
	if *jsonPath != "" {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*jsonPath, append(b, '\n'), 0o644)
	}
	return nil
}
