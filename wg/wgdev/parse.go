package wgdev

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"math"
	"time"

	"github.com/kexlab/kexlab/internal/stackwipe"
	"github.com/kexlab/kexlab/wg"
)

// The parser of the UAPI text protocol
// (https://www.wireguard.com/xplatform/): a get answer is a series of
// key=value lines, first the interface's (private_key, listen_port,
// fwmark), then one section per peer, each opened by its public_key line;
// a socket answer ends with an errno=N line and a blank line. The parser
// works on the bytes in place: it makes no string of a line, decodes only
// the keys it is asked for, into fixed arrays, and never modifies its
// input, which the caller clears.

// dump receives what parseDump reads from a get answer. The caller sets
// the request fields and clears private once done.
type dump struct {
	// Requests.
	want        *[32]byte // report the status of this peer (nil: none)
	match       *wg.PSK   // compare want's PSK with this one instead of hashing it
	wantPrivate bool      // decode the interface's private key into private

	// Results.
	private    [32]byte   // the interface's private key, if wantPrivate
	hasPrivate bool       // whether the interface has a private key
	listenPort uint16     // the interface's UDP port (0: none listed)
	found      bool       // whether peer want is in the dump
	st         PeerStatus // want's status if found; PSKHash only if match is nil
	matched    bool       // whether want's PSK equals *match
}

// malformed is the error for a malformed answer. why is one of the
// parser's own fixed phrases: no text of the answer is ever put in an
// error, where it could carry a key.
func malformed(line int, why string) error {
	if line == 0 {
		return fmt.Errorf("%w: %s", ErrUAPI, why)
	}
	return fmt.Errorf("%w: line %d: %s", ErrUAPI, line, why)
}

var (
	lfLF      = []byte("\n\n")
	errnoKey  = []byte("errno=")
	equalSign = []byte("=")
)

// splitAnswer splits a socket answer, which must end with "errno=N\n\n",
// into the key=value lines before the errno line (each ending with '\n')
// and N.
func splitAnswer(ans []byte) (body []byte, errno int64, err error) {
	if !bytes.HasSuffix(ans, lfLF) {
		return nil, 0, malformed(0, "answer does not end with a blank line")
	}
	a := ans[:len(ans)-1] // ends with the errno line's '\n'
	start := bytes.LastIndexByte(a[:len(a)-1], '\n') + 1
	v, ok := bytes.CutPrefix(a[start:len(a)-1], errnoKey)
	if !ok {
		return nil, 0, malformed(0, "answer has no errno line at its end")
	}
	neg := false
	if len(v) > 0 && v[0] == '-' {
		neg, v = true, v[1:]
	}
	n, ok := parseUint(v, math.MaxInt64)
	if !ok {
		return nil, 0, malformed(0, "bad errno value")
	}
	errno = int64(n)
	if neg {
		errno = -errno
	}
	return a[:start], errno, nil
}

// parseDump parses the key=value lines of a get answer (without the errno
// line) into d. Keys it does not know are skipped; the values of those it
// uses, and every key, are checked. On an error d.private is cleared.
func parseDump(b []byte, d *dump) error {
	err := parseLines(b, d)
	if err != nil {
		clear(d.private[:])
	}
	stackwipe.Wipe()
	return err
}

func parseLines(b []byte, d *dump) error {
	var (
		inPeer  bool // past the first public_key line
		cur     bool // in the section of peer d.want
		pskSeen bool // cur's preshared_key line was read
		sec     uint64
		nsec    uint64
	)
	for line := 1; len(b) > 0; line++ {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return malformed(line, "line has no newline")
		}
		key, val, ok := bytes.Cut(b[:i], equalSign)
		b = b[i+1:]
		if !ok || len(key) == 0 {
			return malformed(line, "not a key=value line")
		}
		// string(key) in a switch does not allocate, and a key name is no
		// secret; values are only ever handled as bytes.
		switch string(key) {
		case "private_key":
			switch {
			case inPeer:
				return malformed(line, "private_key in a peer section")
			case d.hasPrivate:
				return malformed(line, "second private_key")
			case d.wantPrivate:
				if !decodeKey(&d.private, val) {
					return malformed(line, "bad private_key value")
				}
			case !isHexKey(val):
				return malformed(line, "bad private_key value")
			}
			d.hasPrivate = true
		case "listen_port":
			n, ok := parseUint(val, math.MaxUint16)
			switch {
			case inPeer:
				return malformed(line, "listen_port in a peer section")
			case !ok:
				return malformed(line, "bad listen_port value")
			}
			d.listenPort = uint16(n)
		case "public_key":
			var pk [32]byte // public: no need to clear
			if !decodeKey(&pk, val) {
				return malformed(line, "bad public_key value")
			}
			inPeer = true
			cur = d.want != nil && pk == *d.want
			if cur {
				if d.found {
					return malformed(line, "peer listed twice")
				}
				d.found = true
			}
		case "preshared_key":
			switch {
			case !inPeer:
				return malformed(line, "preshared_key outside a peer section")
			case !cur:
				if !isHexKey(val) {
					return malformed(line, "bad preshared_key value")
				}
				continue
			case pskSeen:
				return malformed(line, "second preshared_key")
			}
			var psk wg.PSK
			ok := decodeKey((*[32]byte)(&psk), val)
			if ok {
				d.usePSK(&psk)
			}
			psk.Zero()
			if !ok {
				return malformed(line, "bad preshared_key value")
			}
			pskSeen = true
		case "last_handshake_time_sec", "last_handshake_time_nsec", "tx_bytes", "rx_bytes":
			if !inPeer {
				return malformed(line, "peer key outside a peer section")
			}
			limit := uint64(math.MaxInt64)
			if key[0] == 't' || key[0] == 'r' {
				limit = math.MaxUint64
			}
			n, ok := parseUint(val, limit)
			if !ok {
				return malformed(line, "bad number")
			}
			if !cur {
				continue
			}
			switch key[0] {
			case 't':
				d.st.TxBytes = n
			case 'r':
				d.st.RxBytes = n
			default:
				if len(key) == len("last_handshake_time_sec") {
					sec = n
				} else {
					nsec = n
				}
			}
		}
	}
	if d.found {
		if !pskSeen { // no preshared_key line: the all-zero key, as wgctrl reports it
			var zero wg.PSK
			d.usePSK(&zero)
		}
		if sec != 0 || nsec != 0 {
			d.st.LastHandshake = time.Unix(int64(sec), int64(nsec))
		}
	}
	return nil
}

// usePSK records the wanted peer's PSK: compared with d.match, or else
// hashed into d.st.PSKHash.
func (d *dump) usePSK(psk *wg.PSK) {
	if d.match != nil {
		d.matched = subtle.ConstantTimeCompare(psk[:], d.match[:]) == 1
		return
	}
	d.st.PSKHash = psk.Hash()
}

// decodeKey decodes a 64-digit hex key into dst in constant time (the
// keys are secrets: encoding/hex looks each digit up in a table, and a
// digit-class check branches on it). On failure dst may hold part of it:
// the caller clears it.
func decodeKey(dst *[32]byte, hexKey []byte) bool {
	if len(hexKey) != 2*len(dst) {
		return false
	}
	valid := 1
	for i := range dst {
		hi, okHi := hexNibble(hexKey[2*i])
		lo, okLo := hexNibble(hexKey[2*i+1])
		dst[i] = hi<<4 | lo
		valid &= okHi & okLo
	}
	return valid == 1
}

// isHexKey reports whether v is a 64-digit hex key, without decoding it
// and in constant time, like decodeKey.
func isHexKey(v []byte) bool {
	if len(v) != 64 {
		return false
	}
	valid := 1
	for _, c := range v {
		_, ok := hexNibble(c)
		valid &= ok
	}
	return valid == 1
}

// hexNibble returns the value of hex digit c (0-9, a-f, A-F) and 1, or
// 0 and 0 for any other byte, with neither a branch nor a table lookup
// that depends on c: (x-10)>>8 is -1 exactly when x < 10, and
// ((x-10)^(x-16))>>8 is -1 exactly when 10 <= x < 16.
func hexNibble(c byte) (byte, int) {
	num := int(c) ^ '0'
	isNum := ((num - 10) >> 8) & 1
	alpha := int(c&^32) - 'A' + 10
	isAlpha := (((alpha - 10) ^ (alpha - 16)) >> 8) & 1
	return byte(-isNum&num | -isAlpha&alpha), isNum | isAlpha
}

// parseUint parses a non-empty decimal number no larger than limit.
func parseUint(v []byte, limit uint64) (uint64, bool) {
	if len(v) == 0 || len(v) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, false
		}
		n = 10*n + d
	}
	return n, true
}
