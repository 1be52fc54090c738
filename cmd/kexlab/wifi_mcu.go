package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kexlab/kexlab/wifi/airtime"
	"github.com/kexlab/kexlab/wifi/lwc"
	"github.com/kexlab/kexlab/wifi/mcu"
)

// mcuResultsDir is where kexlab wifi mcu writes <platform>.json and
// -platform reads it by default.
var mcuResultsDir = filepath.Join("out", "wifi-mcu")

// mcuUnavailable is the platform the talk also used that package mcu
// cannot measure; Run says why.
const mcuUnavailable = "msp430"

// cmdWifiMCU runs package wifi/mcu: the C ciphers on the simulated
// microcontrollers, the known-answer tests and the measurements; prints
// each platform's table and writes DIR/<platform>.json for wifi table and
// wifi protect.
func cmdWifiMCU(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wifi mcu", stderr)
	platform := fs.String("platform", "all", "atmega128 (simavr, exact cycles), cortex-m3 (QEMU, instruction trace × cycle model) or all")
	short := fs.Bool("short", false, "a KAT subset (every message and AD length around the block edges) instead of every KAT; the measurements are the same")
	outDir := fs.String("o", mcuResultsDir, "write `DIR`/<platform>.json here (read by wifi table and wifi protect -platform)")
	vectors := fs.String("vectors", "", "the `DIR` of the shared vectors, holding lwc/ and ascon/ (default ../shared/vectors beside the repository root above the working directory)")
	if err := parse(fs, args); err != nil {
		return err
	}
	platforms := []string{*platform}
	switch {
	case *platform == "all":
		platforms = mcu.Platforms()
	case *platform == mcuUnavailable: // Run refuses it with the reason
		_, err := mcu.Run(context.Background(), mcu.Config{Platform: *platform})
		return err
	case !slices.Contains(mcu.Platforms(), *platform):
		return fmt.Errorf("%w: unknown -platform %q (have %s, all)", errUsage, *platform, strings.Join(mcu.Platforms(), ", "))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, p := range platforms {
		start := time.Now()
		prog := newMCUProgress(stderr, p)
		m, err := mcu.Run(ctx, mcu.Config{Platform: p, Short: *short, Log: prog, Vectors: *vectors})
		prog.done()
		if m != nil {
			printMCU(stdout, m)
		}
		switch {
		case errors.Is(err, mcu.ErrToolchain):
			return fmt.Errorf("%v; make wifi-mcu installs the toolchains and simulators (scripts/wifi-mcu-deps.sh) and runs this", err)
		case err != nil:
			return err
		}
		path := filepath.Join(*outDir, p+".json")
		if err := mcu.WriteJSON(path, m); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%v)\n\n", path, time.Since(start).Round(time.Second))
	}
	return nil
}

// printMCU prints mcu's table of m and, on the ATmega128, the talk's
// T_auth beside ours on its link (the talk's KDF and MIC are in the table).
func printMCU(w io.Writer, m *mcu.Measurement) {
	if err := m.WriteTable(w); err != nil {
		return
	}
	if m.Platform != "atmega128" {
		return
	}
	sdr, _, err := lwc.ParseLink(lwc.PresetSDR)
	if err != nil {
		return
	}
	for _, c := range lwc.Ciphers() {
		talk, ok := mcu.TalkATmega128[c.Name]
		if !ok {
			continue
		}
		s, err := airtime.Lookup(c.Name)
		if err != nil {
			continue
		}
		frames, err := airtime.Frames(s)
		if err != nil {
			continue
		}
		rows, err := airtime.Platform(onlyCipher(m, c.Name), map[string][4]int{c.Name: frames}, airtime.MICTalk, sdr)
		if err != nil || len(rows) != 1 {
			continue
		}
		r := rows[0]
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
		fmt.Fprintf(w, "talk (ATmega128, its SDR link): %s T_auth %.1f ms = %.0f + 2·%.2f + 3·%.2f ms; here %.2f ms = %.2f + 2·%.2f + 3·%.2f ms on %s (4-block MIC)\n",
			c.Name, talk.Auth, ms(lwc.TalkTx), talk.KDF, talk.MIC, ms(r.Auth), ms(r.Tx), ms(r.TKDF), ms(r.TMIC), r.Link)
	}
}

// mcuProgress shows mcu.Run's progress lines on w with the time since the
// start: on a terminal as one status line rewritten in place, elsewhere
// (a log, CI) one line each.
type mcuProgress struct {
	w        io.Writer
	platform string
	tty      bool
	start    time.Time
	shown    int // length of the status line on the terminal
	buf      []byte
}

func newMCUProgress(w io.Writer, platform string) *mcuProgress {
	p := &mcuProgress{w: w, platform: platform, tty: isTerminal(w), start: time.Now()}
	p.line("mcu: " + platform + ": building and running (a few minutes; -short: under a minute)")
	return p
}

func (p *mcuProgress) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.line(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
	}
}

func (p *mcuProgress) line(s string) {
	s = fmt.Sprintf("%4.0fs %s", time.Since(p.start).Seconds(), s)
	if !p.tty {
		fmt.Fprintln(p.w, s)
		return
	}
	fmt.Fprintf(p.w, "\r%s%s", s, strings.Repeat(" ", max(0, p.shown-len(s))))
	p.shown = len(s)
}

// done clears the status line on a terminal.
func (p *mcuProgress) done() {
	if p.tty && p.shown > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.shown))
	}
}
