package wgdev

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/kexlab/kexlab/wg"
)

var (
	testPriv = [32]byte{1, 2, 3}
	testPeer = [32]byte{0xaa, 0xbb}
	testPSK  = wg.PSK{0x55, 0x66}
)

func hexOf(k []byte) string { return hex.EncodeToString(k) }

// testDump is a get answer (as wireguard-go writes it) with two peers,
// the second being testPeer.
func testDump() string {
	other := [32]byte{0x11}
	return "private_key=" + hexOf(testPriv[:]) + "\n" +
		"listen_port=51820\n" +
		"public_key=" + hexOf(other[:]) + "\n" +
		"preshared_key=" + strings.Repeat("0", 64) + "\n" +
		"protocol_version=1\n" +
		"last_handshake_time_sec=0\nlast_handshake_time_nsec=0\ntx_bytes=0\nrx_bytes=0\n" +
		"persistent_keepalive_interval=0\n" +
		"public_key=" + hexOf(testPeer[:]) + "\n" +
		"preshared_key=" + hexOf(testPSK[:]) + "\n" +
		"protocol_version=1\n" +
		"endpoint=127.0.0.1:51821\n" +
		"last_handshake_time_sec=1700000000\nlast_handshake_time_nsec=123\n" +
		"tx_bytes=18446744073709551615\nrx_bytes=7\n" +
		"persistent_keepalive_interval=0\n" +
		"allowed_ip=10.0.0.2/32\n" +
		"errno=0\n\n"
}

func TestParseDump(t *testing.T) {
	in := []byte(testDump())
	body, errno, err := splitAnswer(in)
	if err != nil || errno != 0 {
		t.Fatalf("splitAnswer: %v, errno %d", err, errno)
	}
	want := testPeer
	d := dump{want: &want, wantPrivate: true}
	if err := parseDump(body, &d); err != nil {
		t.Fatal(err)
	}
	st := PeerStatus{LastHandshake: time.Unix(1700000000, 123), TxBytes: 1<<64 - 1, RxBytes: 7,
		PSKHash: testPSK.Hash()}
	if !d.found || !equalStatus(d.st, st) {
		t.Errorf("status %+v (found %v), want %+v", d.st, d.found, st)
	}
	if !d.hasPrivate || d.private != testPriv || d.listenPort != 51820 {
		t.Errorf("interface: private %v %x, port %d", d.hasPrivate, d.private[:4], d.listenPort)
	}

	// Comparing instead of hashing.
	psk := testPSK
	d = dump{want: &want, match: &psk}
	if err := parseDump(body, &d); err != nil || !d.matched || d.st.PSKHash != ([32]byte{}) {
		t.Errorf("match: %v, matched %v, hash %x", err, d.matched, d.st.PSKHash)
	}
	psk[0]++
	d = dump{want: &want, match: &psk}
	if err := parseDump(body, &d); err != nil || d.matched {
		t.Errorf("mismatch: %v, matched %v", err, d.matched)
	}

	// The private key is decoded only when asked for.
	d = dump{}
	if err := parseDump(body, &d); err != nil || d.found || !d.hasPrivate || d.private != ([32]byte{}) {
		t.Errorf("no request: %v, found %v, private %x", err, d.found, d.private[:4])
	}

	// A peer without a preshared_key line has the zero key, hashed (as
	// wgctrl reports it), and no handshake.
	d = dump{want: &want}
	if err := parseDump([]byte("public_key="+hexOf(testPeer[:])+"\n"), &d); err != nil {
		t.Fatal(err)
	}
	if zero := (wg.PSK{}); !d.found || d.st.PSKHash != zero.Hash() || !d.st.LastHandshake.IsZero() {
		t.Errorf("bare peer: %+v", d.st)
	}
	if !bytes.Equal(in, []byte(testDump())) {
		t.Error("parsing modified its input")
	}
}

func TestSplitAnswer(t *testing.T) {
	for _, c := range []struct {
		in    string
		body  string
		errno int64
	}{
		{"errno=0\n\n", "", 0},
		{"errno=-22\n\n", "", -22},
		{"errno=55\n\n", "", 55},
		{"a=b\nerrno=0\n\n", "a=b\n", 0},
	} {
		body, errno, err := splitAnswer([]byte(c.in))
		if err != nil || string(body) != c.body || errno != c.errno {
			t.Errorf("splitAnswer(%q) = %q, %d, %v", c.in, body, errno, err)
		}
	}
	for _, in := range []string{
		"", "\n", "\n\n", "errno=0\n", "errno=0", "errno=\n\n", "errno=-\n\n", "errno=x\n\n",
		"errno=99999999999999999999\n\n", "a=b\n\n", "errno=0\na=b\n\n", "Errno=0\n\n",
		"errno=0 \n\n", "errno=+1\n\n",
	} {
		if _, _, err := splitAnswer([]byte(in)); !errors.Is(err, ErrUAPI) {
			t.Errorf("splitAnswer(%q): %v, want ErrUAPI", in, err)
		}
	}
}

func TestParseDumpMalformed(t *testing.T) {
	key := hexOf(testPeer[:])
	other := hexOf([]byte{0x11, 31: 0})
	for _, c := range []struct{ name, in string }{
		{"no newline", "listen_port=1"},
		{"blank line", "listen_port=1\n\nlisten_port=2\n"},
		{"no equals", "listen_port\n"},
		{"empty key", "=1\n"},
		{"bad private hex", "private_key=" + strings.Repeat("g", 64) + "\n"},
		{"short private", "private_key=" + key[:62] + "\n"},
		{"long private", "private_key=" + key + "00\n"},
		{"second private", "private_key=" + key + "\nprivate_key=" + key + "\n"},
		{"private in peer", "public_key=" + key + "\nprivate_key=" + key + "\n"},
		{"bad port", "listen_port=65536\n"},
		{"negative port", "listen_port=-1\n"},
		{"port in peer", "public_key=" + key + "\nlisten_port=1\n"},
		{"bad public", "public_key=" + key[:63] + "x\n"},
		{"empty public", "public_key=\n"},
		{"psk outside peer", "preshared_key=" + key + "\n"},
		{"bad psk", "public_key=" + key + "\npreshared_key=" + key[:63] + "g\n"},
		{"bad psk of another", "public_key=" + other + "\npreshared_key=" + key[:10] + "\n"},
		{"second psk", "public_key=" + key + "\npreshared_key=" + key + "\npreshared_key=" + key + "\n"},
		{"peer twice", "public_key=" + key + "\npublic_key=" + key + "\n"},
		{"counter outside peer", "tx_bytes=1\n"},
		{"bad counter", "public_key=" + key + "\nrx_bytes=1x\n"},
		{"empty counter", "public_key=" + key + "\nrx_bytes=\n"},
		{"overflow counter", "public_key=" + key + "\ntx_bytes=18446744073709551616\n"},
		{"overflow time", "public_key=" + key + "\nlast_handshake_time_sec=9223372036854775808\n"},
		{"bad time of another", "public_key=" + other + "\nlast_handshake_time_nsec=-1\n"},
	} {
		want := testPeer
		d := dump{want: &want, wantPrivate: true}
		err := parseDump([]byte(c.in), &d)
		if !errors.Is(err, ErrUAPI) {
			t.Errorf("%s: %v, want ErrUAPI", c.name, err)
			continue
		}
		if strings.Contains(err.Error(), key[:8]) || strings.Contains(err.Error(), "ggg") {
			t.Errorf("%s: the error shows the input: %v", c.name, err)
		}
		if d.private != ([32]byte{}) {
			t.Errorf("%s: private key left after an error", c.name)
		}
	}
	// Unknown keys are skipped.
	d := dump{}
	if err := parseDump([]byte("fwmark=0\nfuture_key=anything=at all\n"), &d); err != nil {
		t.Errorf("unknown keys: %v", err)
	}
}

func TestHexDigit(t *testing.T) {
	for v := range byte(16) {
		if got, want := hexDigit(v), "0123456789abcdef"[v]; got != want {
			t.Errorf("hexDigit(%d) = %c, want %c", v, got, want)
		}
	}
	var s secretBuf
	k := [32]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 31: 0xff}
	if err := s.writeHex(&k); err != nil || string(s.bytes()) != hexOf(k[:]) {
		t.Errorf("writeHex = %q, %v", s.bytes(), err)
	}
}

// FuzzParseUAPI: no input makes the parser or the answer reader panic,
// modify their input, or report an answer other than the input's first
// blank-line-terminated prefix.
func FuzzParseUAPI(f *testing.F) {
	f.Add([]byte(testDump()))
	f.Add([]byte("errno=-22\n\n"))
	f.Add([]byte("public_key=" + hexOf(testPeer[:]) + "\nrx_bytes=1\nerrno=0\n\n"))
	f.Add([]byte("private_key=zz\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := bytes.Clone(in)
		want := testPeer
		d := dump{want: &want, wantPrivate: true}
		if body, _, err := splitAnswer(in); err == nil {
			if !bytes.HasPrefix(in, body) {
				t.Fatal("body is not a prefix of the answer")
			}
			if err := parseDump(body, &d); err == nil && !d.hasPrivate && d.private != ([32]byte{}) {
				t.Fatal("private key without a private_key line")
			}
		}
		psk := testPSK
		d2 := dump{want: &want, match: &psk}
		parseDump(in, &d2)

		var s secretBuf
		ans, err := s.readAnswer(iotest.HalfReader(bytes.NewReader(in)))
		if err == nil {
			i := bytes.Index(in, lfLF)
			if i < 0 || !bytes.Equal(ans, in[:i+2]) {
				t.Fatalf("answer %q from %q", ans, in)
			}
		} else if !errors.Is(err, ErrUAPI) {
			t.Fatalf("readAnswer: %v", err)
		}
		s.wipe()
		checkWiped(t, "buffer", s.b)
		if !bytes.Equal(in, orig) {
			t.Fatal("input modified")
		}
	})
}

// hexNibble against encoding/hex for every byte value.
func TestHexNibble(t *testing.T) {
	for c := 0; c < 256; c++ {
		v, ok := hexNibble(byte(c))
		want, err := hex.DecodeString(string([]byte{'0', byte(c)}))
		if (ok == 1) != (err == nil) || ok == 1 && v != want[0] || ok == 0 && v != 0 {
			t.Errorf("hexNibble(%q) = %d, %d; encoding/hex: %v, %v", byte(c), v, ok, want, err)
		}
	}
	var k [32]byte
	if !decodeKey(&k, []byte("00FF10aB"+strings.Repeat("0", 56))) || k[0] != 0 || k[1] != 0xff || k[2] != 0x10 || k[3] != 0xab {
		t.Errorf("decodeKey: %x", k[:4])
	}
	if decodeKey(&k, []byte("0g"+strings.Repeat("0", 62))) || isHexKey([]byte("0g"+strings.Repeat("0", 62))) || !isHexKey([]byte(strings.Repeat("F", 64))) {
		t.Error("a non-hex digit accepted, or upper-case refused")
	}
}
