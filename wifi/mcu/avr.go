package mcu

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// AVR build: avr-gcc -O2 for the ATmega128 (avr51), one firmware per
// cipher.
var avrFlags = []string{"-mmcu=atmega128", "-O2", "-std=gnu99", "-Wall", "-Wextra", "-Werror",
	"-ffunction-sections", "-fdata-sections", "-DF_CPU=16000000UL"}

// The two busy-waits of c/avr_main.c, in cycles.
const (
	avrDelay0 = 1048576
	avrDelay1 = 197385
)

// avrCycleLimit stops a firmware that runs away (the full WAGE run takes
// some 10^10 cycles).
const avrCycleLimit = 200_000_000_000

func (r *runner) avr() (*Measurement, error) {
	if err := need("avr-gcc", "cc", "pkg-config"); err != nil {
		return nil, err
	}
	pc, err := exec.CommandContext(r.ctx, "pkg-config", "--cflags", "--libs", "simavr").Output()
	if err != nil {
		return nil, fmt.Errorf("%w: libsimavr (pkg-config simavr): %v (scripts/wifi-mcu-deps.sh installs libsimavr-dev)", ErrToolchain, err)
	}
	harness := filepath.Join(r.dir, "simavr_run")
	args := []string{"-O2", "-o", harness, filepath.Join(r.src, "simavr_run.c")}
	args = append(append(args, strings.Fields(string(pc))...), "-lelf")
	r.logf("mcu: building the simavr harness")
	if _, err := r.run(r.dir, "cc", args...); err != nil {
		return nil, fmt.Errorf("%w (is libelf-dev installed?)", err)
	}
	short := 0
	if r.cfg.Short {
		short = 1
	}
	flags := append(append([]string{}, avrFlags...), fmt.Sprintf("-DMCU_SHORT=%d", short))
	runs := map[string]*cipherRun{}
	var calib []string
	err = parallel(cipherOrder, func(c string) error {
		out := filepath.Join(r.dir, "avr", c)
		fl := append(append([]string{}, flags...), cipherDefines(c)...)
		objs, err := r.compileObjects("avr-gcc", fl, out, append(append(append([]string{}, cipherSources[c]...), runnerSources...), "avr_main.c"))
		if err != nil {
			return err
		}
		fw := filepath.Join(out, c+".elf")
		if _, err := r.run(out, "avr-gcc", append([]string{"-mmcu=atmega128", "-Wl,--gc-sections", "-o", fw}, objs...)...); err != nil {
			return err
		}
		r.logf("mcu: atmega128 %s: running on simavr", c)
		stdout, err := r.run(out, harness, "atmega128", "16000000", fmt.Sprint(avrCycleLimit), fw)
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", c, err, tail(stdout, 500))
		}
		o, err := Parse(bytes.NewReader(stdout))
		if err != nil {
			return fmt.Errorf("atmega128 %s: %w", c, err)
		}
		cr, cal, err := r.avrCipher(c, o, objs[:len(cipherSources[c])])
		if err != nil {
			return err
		}
		r.mu.Lock()
		runs[c] = cr
		calib = append(calib, cal)
		r.mu.Unlock()
		r.logf("mcu: atmega128 %s: %d/%d KATs, %d simulated cycles", c, cr.passed, cr.total, o.Cycles)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(calib)
	model := "exact (simavr, cycle-accurate): Timer1 at clk/1 with an overflow interrupt; removed: " + strings.Join(uniq(calib), "; ")
	tool := fmt.Sprintf("%s; %s; avr-libc", r.version("avr-gcc"), strings.Join(flags[:len(flags)-1], " "))
	sim := "simavr (libsimavr " + simavrVersion() + "), core atmega128 at 16 MHz, driven by c/simavr_run.c; USART0 at 2 Mbit/s"
	return measurement("atmega128", model, tool, sim, runs)
}

// avrCipher checks a firmware's KATs and turns its raw Timer1 counts into
// cycles: cycles = raw - E - isr·K, where E is the empty measurement and
// K the cycles of one overflow interrupt, from the two busy-waits of known
// length (which must then come out within 4 cycles of it).
func (r *runner) avrCipher(c string, o *Output, cipherObjs []string) (*cipherRun, string, error) {
	if !o.Ended {
		return nil, "", fmt.Errorf("%w: atmega128 %s: the firmware did not finish", ErrMeasure, c)
	}
	cr := &cipherRun{cipher: c, ops: map[opKey]opCount{}, notes: []string{katNote(c, r.cfg.Short)}}
	var fails []string
	cr.passed, cr.total, fails = r.kats.check(o, c, r.cfg.Short)
	if len(fails) > 0 || o.Failures > 0 {
		sort.Strings(fails)
		return nil, "", fmt.Errorf("%w: atmega128 %s: %d device-side failures; %s", ErrKAT, c, o.Failures, strings.Join(first(fails, 5), "; "))
	}
	var d0, d1, empty *MLine
	for i := range o.Measures {
		m := &o.Measures[i]
		switch {
		case m.Cipher == "-" && m.Op == "delay" && m.Variant == 0:
			d0 = m
		case m.Cipher == "-" && m.Op == "delay" && m.Variant == 1:
			d1 = m
		case m.Cipher == "-" && m.Op == "empty":
			empty = m
		}
	}
	if d0 == nil || d1 == nil || empty == nil || d0.ISR <= d1.ISR || empty.ISR != 0 {
		return nil, "", fmt.Errorf("%w: atmega128 %s: timer calibration lines missing", ErrMeasure, c)
	}
	num := (d0.Raw - d1.Raw) - (avrDelay0 - avrDelay1)
	den := int64(d0.ISR - d1.ISR)
	if num%den != 0 || num/den < 10 || num/den > 200 {
		return nil, "", fmt.Errorf("%w: atmega128 %s: overflow interrupt cost %d/%d cycles is not a whole number in 10..200", ErrMeasure, c, num, den)
	}
	k, e := num/den, empty.Raw
	for _, d := range []struct {
		m    *MLine
		want int64
	}{{d0, avrDelay0}, {d1, avrDelay1}} {
		if res := d.m.Raw - e - int64(d.m.ISR)*k - d.want; res < -4 || res > 4 {
			return nil, "", fmt.Errorf("%w: atmega128 %s: a busy-wait of %d cycles measured %d off", ErrMeasure, c, d.want, res)
		}
	}
	for _, m := range o.Measures {
		if m.Cipher != c {
			continue
		}
		key := opKey{m.Op, m.Variant}
		if _, dup := cr.ops[key]; dup {
			return nil, "", fmt.Errorf("%w: atmega128 %s: %s measured twice", ErrMeasure, c, m.Op)
		}
		cr.ops[key] = opCount{cycles: m.Raw - e - int64(m.ISR)*k, stack: m.Stack}
	}
	var err error
	if cr.flash, cr.sram, err = objectSizes(true, cipherObjs...); err != nil {
		return nil, "", err
	}
	cal := fmt.Sprintf("%d cycles per overflow interrupt and %d cycles of call overhead (calibrated on busy-waits of 2^20 and 197385 cycles, exact within ±4)", k, e)
	return cr, cal, nil
}

func uniq(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

// simavrVersion is the Debian package version of libsimavr, if dpkg knows.
func simavrVersion() string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "libsimavr-dev").Output()
	if err != nil || len(out) == 0 {
		return "version unknown"
	}
	return string(out)
}
