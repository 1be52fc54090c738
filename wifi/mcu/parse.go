package mcu

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrParse is wrapped by every ParseError.
var ErrParse = errors.New("mcu: malformed runner output")

// ParseError is a line of runner output that is not in the format of
// c/runner.h, or an output that breaks a limit.
type ParseError struct {
	Line int // 1-based; 0 for the output as a whole
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return "mcu: runner output: " + e.Msg
	}
	return fmt.Sprintf("mcu: runner output line %d: %s", e.Line, e.Msg)
}

func (e *ParseError) Unwrap() error { return ErrParse }

// Limits of Parse: the full KATs of one firmware are some 2,200 lines of
// at most 120 bytes.
const (
	maxLineBytes  = 1024
	maxLines      = 20000
	maxOutput     = 4 << 20
	maxCount      = 1089 // records per AEAD KAT file
	maxHashCount  = 1025 // records of the ACE-H-256 KAT file
	maxOutputHex  = 48   // C||T of a 32-byte message
	maxMeasures   = 200
	maxCyclesLine = 1 << 40
)

// KATLine is one "kat" line: the firmware's C||T for a record, and whether
// decryption gave the message back and rejected tampered inputs.
type KATLine struct {
	Out []byte
	OK  bool
}

// MLine is one "m" line: a measured operation.
type MLine struct {
	Cipher  string // "-" for calibrations
	Op      string
	Variant int
	Raw     int64 // the firmware's count (AVR: Timer1 cycles; Cortex-M3: 0)
	ISR     int   // timer interrupts served during the operation
	Stack   int   // bytes of stack used below the measuring frame
}

// Output is a parsed runner output.
type Output struct {
	Info     map[string]string
	KATs     map[string]map[int]KATLine // cipher -> count -> line
	Hashes   map[int][]byte             // count -> digest
	Measures []MLine                    // in output order
	Ended    bool
	Failures int   // from the "end" line
	Cycles   int64 // simulated cycles ("# simavr cycles N ..."), or 0
}

var knownCiphers = map[string]bool{"ace": true, "spix": true, "wage": true, "ascon": true}

// Parse reads runner output (see c/runner.h). It is strict: an unknown
// line, a duplicate record, a field out of range or a line after "end" is
// a *ParseError; so is an output over its limits.
func Parse(r io.Reader) (*Output, error) {
	o := &Output{Info: map[string]string{}, KATs: map[string]map[int]KATLine{}, Hashes: map[int][]byte{}}
	sc := bufio.NewScanner(io.LimitReader(r, maxOutput+1))
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	total, n := 0, 0
	for sc.Scan() {
		n++
		line := sc.Text()
		total += len(line) + 1
		if n > maxLines || total > maxOutput {
			return nil, &ParseError{Msg: fmt.Sprintf("more than %d lines or %d bytes", maxLines, maxOutput)}
		}
		if err := o.line(line); err != nil {
			return nil, &ParseError{Line: n, Msg: err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{Line: n + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLineBytes)}
		}
		return nil, err
	}
	return o, nil
}

func (o *Output) line(line string) error {
	if strings.HasPrefix(line, "#") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[1] == "simavr" && f[2] == "cycles" {
			c, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil || c < 0 {
				return fmt.Errorf("bad simulated cycle count %q", f[3])
			}
			o.Cycles = c
		}
		return nil
	}
	if o.Ended {
		return errors.New("text after the end line")
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	switch f[0] {
	case "info":
		if len(f) != 3 {
			return errors.New("info wants a key and a value")
		}
		if _, dup := o.Info[f[1]]; dup || len(o.Info) >= 16 {
			return fmt.Errorf("info %q repeated or too many", f[1])
		}
		o.Info[f[1]] = f[2]
	case "kat":
		if len(f) != 5 || !knownCiphers[f[1]] {
			return errors.New("kat wants cipher count hex ok")
		}
		c, err := count(f[2], maxCount)
		if err != nil {
			return err
		}
		b, err := hexField(f[3], 16, maxOutputHex)
		if err != nil {
			return err
		}
		if f[4] != "0" && f[4] != "1" {
			return fmt.Errorf("kat verdict %q is not 0 or 1", f[4])
		}
		m := o.KATs[f[1]]
		if m == nil {
			m = map[int]KATLine{}
			o.KATs[f[1]] = m
		}
		if _, dup := m[c]; dup {
			return fmt.Errorf("kat %s %d repeated", f[1], c)
		}
		m[c] = KATLine{Out: b, OK: f[4] == "1"}
	case "hash":
		if len(f) != 3 {
			return errors.New("hash wants count hex")
		}
		c, err := count(f[1], maxHashCount)
		if err != nil {
			return err
		}
		b, err := hexField(f[2], 32, 32)
		if err != nil {
			return err
		}
		if _, dup := o.Hashes[c]; dup {
			return fmt.Errorf("hash %d repeated", c)
		}
		o.Hashes[c] = b
	case "m":
		if len(f) != 7 || (f[1] != "-" && !knownCiphers[f[1]]) || len(f[2]) > 16 {
			return errors.New("m wants cipher op variant raw isr stack")
		}
		if len(o.Measures) >= maxMeasures {
			return errors.New("too many measurements")
		}
		var v [4]int64
		for i, lim := range []int64{1, maxCyclesLine, 1 << 20, 1 << 20} {
			x, err := strconv.ParseInt(f[3+i], 10, 64)
			if err != nil || x < 0 || x > lim {
				return fmt.Errorf("m field %q out of range", f[3+i])
			}
			v[i] = x
		}
		o.Measures = append(o.Measures, MLine{Cipher: f[1], Op: f[2], Variant: int(v[0]), Raw: v[1], ISR: int(v[2]), Stack: int(v[3])})
	case "end":
		if len(f) != 2 {
			return errors.New("end wants a failure count")
		}
		x, err := strconv.Atoi(f[1])
		if err != nil || x < 0 || x > maxCount {
			return fmt.Errorf("bad failure count %q", f[1])
		}
		o.Ended, o.Failures = true, x
	default:
		return fmt.Errorf("unknown line kind %q", f[0])
	}
	return nil
}

func count(s string, max int) (int, error) {
	c, err := strconv.Atoi(s)
	if err != nil || c < 1 || c > max {
		return 0, fmt.Errorf("count %q not in 1..%d", s, max)
	}
	return c, nil
}

func hexField(s string, min, max int) ([]byte, error) {
	if len(s)%2 != 0 || len(s) < 2*min || len(s) > 2*max {
		return nil, fmt.Errorf("hex field of %d digits, want %d..%d bytes", len(s), min, max)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("hex field: %v", err)
	}
	return b, nil
}
