// Package genkat reads known-answer files in the NIST lightweight-cryptography
// "genkat" format: records separated by blank lines, each a list of
// "Name = HEX" lines starting with "Count = N", e.g.
//
//	Count = 1
//	Key = 000102030405060708090A0B0C0D0E0F
//	Nonce = 000102030405060708090A0B0C0D0E0F
//	PT =
//	AD =
//	CT = 02CF96DC6F171976F9FF4C3FC88E5BBE
//
// Every field other than Count is hexadecimal (an empty value is an empty
// byte string). The LWC round-2 and Ascon SP 800-232 KAT files use it.
package genkat

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrFormat is returned (wrapped) for a file that is not in genkat format.
var ErrFormat = errors.New("genkat: malformed file")

// Record is one known-answer record.
type Record struct {
	Count  int
	Fields map[string][]byte
}

// Get returns the named field and whether it was present.
func (r Record) Get(name string) ([]byte, bool) {
	v, ok := r.Fields[name]
	return v, ok
}

// Parse reads every record of a genkat file. A record must start with
// "Count = N"; a field name may appear once per record.
func Parse(data []byte) ([]Record, error) {
	var out []Record
	var cur *Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		name, val, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%w: line %d: no '='", ErrFormat, line)
		}
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if name == "Count" {
			n, err := strconv.Atoi(val)
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: count %q", ErrFormat, line, val)
			}
			out = append(out, Record{Count: n, Fields: map[string][]byte{}})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%w: line %d: field before Count", ErrFormat, line)
		}
		if _, dup := cur.Fields[name]; dup {
			return nil, fmt.Errorf("%w: line %d: duplicate field %q", ErrFormat, line, name)
		}
		b, err := hex.DecodeString(val)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: field %q: %v", ErrFormat, line, name, err)
		}
		cur.Fields[name] = b
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return out, nil
}
