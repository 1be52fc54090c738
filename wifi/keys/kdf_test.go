package keys

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/kexlab/kexlab/internal/pakeerr"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mac(t testing.TB, s string) [6]byte { return [6]byte(unhex(t, s)) }

type annexJ struct {
	PRF []struct {
		Section, Key, Prefix, Data, Out string
	}
	Passphrase []struct {
		Section, Passphrase, SSID, PSK string
	}
	PTK struct {
		PMK, AA, SPA, ANonce, SNonce, KCK, KEK string
		TKCCMP                                 string `json:"tk_ccmp"`
		TKTKIP                                 string `json:"tk_tkip"`
	}
	KDK struct {
		PMK, AA, SPA, ANonce, SNonce, KCK, KEK, TK, KDK string
	}
}

type capture struct {
	Frame, AA, SPA, ANonce, SNonce, PMK, MIC string
	PTK640                                   string `json:"ptk640"`
	PMK2, MIC2                               string
	PTK2640                                  string `json:"ptk2_640"`
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func TestPRFAnnexJ3(t *testing.T) {
	var v annexJ
	readJSON(t, "annexj.json", &v)
	for _, tc := range v.PRF {
		want := unhex(t, tc.Out)
		got, err := PRF(unhex(t, tc.Key), tc.Prefix, unhex(t, tc.Data), 8*len(want))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: PRF = %x, %v; want %x", tc.Section, got, err, want)
		}
	}
	if len(v.PRF) != 7 {
		t.Fatalf("%d PRF vectors", len(v.PRF))
	}
	for _, bits := range []int{0, -8, 12, 255*160 + 8} {
		if _, err := PRF([]byte("k"), "l", nil, bits); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("PRF(%d bits): %v", bits, err)
		}
	}
}

func TestPassphraseAnnexJ4(t *testing.T) {
	var v annexJ
	readJSON(t, "annexj.json", &v)
	for _, tc := range v.Passphrase {
		got, err := PMKFromPassphrase(tc.Passphrase, []byte(tc.SSID))
		if err != nil || !bytes.Equal(got, unhex(t, tc.PSK)) {
			t.Errorf("%s: PSK = %x, %v; want %s", tc.Section, got, err, tc.PSK)
		}
	}
	for _, c := range []struct {
		p, s string
	}{{"short", "ssid"}, {string(bytes.Repeat([]byte("a"), 64)), "ssid"}, {"pass\x01word", "ssid"}, {"password", ""},
		{"password", string(make([]byte, 33))}} {
		if _, err := PMKFromPassphrase(c.p, []byte(c.s)); !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("PMKFromPassphrase(%q, %d-octet SSID): %v", c.p, len(c.s), err)
		}
	}
}

// TestPTKAnnexJ7 checks the pairwise key derivation of 802.11-2016 J.7:
// PRF-384 split for CCMP, and PRF-512 whose TKIP split gives a 32-octet TK.
func TestPTKAnnexJ7(t *testing.T) {
	var v annexJ
	readJSON(t, "annexj.json", &v)
	p := v.PTK
	ptk, err := SuitePSK.DerivePTK(unhex(t, p.PMK), mac(t, p.AA), mac(t, p.SPA), unhex(t, p.ANonce), unhex(t, p.SNonce))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ptk.KCK, unhex(t, p.KCK)) || !bytes.Equal(ptk.KEK, unhex(t, p.KEK)) || !bytes.Equal(ptk.TK, unhex(t, p.TKCCMP)) {
		t.Errorf("PTK = %x %x %x", ptk.KCK, ptk.KEK, ptk.TK)
	}
	// The same inputs with the roles of the addresses and nonces swapped.
	swapped, err := SuitePSK.DerivePTK(unhex(t, p.PMK), mac(t, p.SPA), mac(t, p.AA), unhex(t, p.SNonce), unhex(t, p.ANonce))
	if err != nil || !bytes.Equal(swapped.TK, ptk.TK) {
		t.Errorf("Min/Max ordering: %x, %v", swapped.TK, err)
	}
	ctx, _ := PTKContext(mac(t, p.AA), mac(t, p.SPA), unhex(t, p.ANonce), unhex(t, p.SNonce))
	full, err := PRF(unhex(t, p.PMK), "Pairwise key expansion", ctx, 512)
	want := append(append(unhex(t, p.KCK), unhex(t, p.KEK)...), unhex(t, p.TKTKIP)...)
	if err != nil || !bytes.Equal(full, want) {
		t.Errorf("PRF-512 (TKIP split) = %x, %v", full, err)
	}
}

// TestKDFSHA256AnnexJ13 checks KDF-SHA-256 with the SAE (AKM 8) PTK and
// KDK of 802.11-2024 J.13: KDF-SHA-256-640 = KCK || KEK || TK || KDK.
func TestKDFSHA256AnnexJ13(t *testing.T) {
	var v annexJ
	readJSON(t, "annexj.json", &v)
	k := v.KDK
	ctx, err := PTKContext(mac(t, k.AA), mac(t, k.SPA), unhex(t, k.ANonce), unhex(t, k.SNonce))
	if err != nil {
		t.Fatal(err)
	}
	got, err := KDF(sha256.New, unhex(t, k.PMK), "Pairwise key expansion", ctx, 640)
	want := unhex(t, k.KCK+k.KEK+k.TK+k.KDK)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("KDF-SHA-256-640 = %x, %v\nwant %x", got, err, want)
	}
}

// TestKDFSHA384 checks KDF-SHA-384 against a direct transcription of
// §12.7.1.7.2 (no published SHA-384 vector was found): block i is
// HMAC-SHA-384(K, i_le16 || label || context || L_le16).
func TestKDFSHA384(t *testing.T) {
	key, ctx := []byte("kexlab key of any length"), []byte("context")
	got, err := KDF(sha512.New384, key, "Pairwise key expansion", ctx, 8*(24+32+32))
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for i := byte(1); i <= 2; i++ {
		m := hmac.New(sha512.New384, key)
		m.Write([]byte{i, 0})
		m.Write([]byte("Pairwise key expansion"))
		m.Write(ctx)
		m.Write([]byte{0xc0, 0x02}) // 704 bits, little-endian
		want = m.Sum(want)
	}
	if !bytes.Equal(got, want[:88]) {
		t.Errorf("KDF-SHA-384-704 = %x\nwant %x", got, want[:88])
	}
	if _, err := KDF(sha256.New, key, "l", nil, 0x10000); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("KDF of 2^16 bits: %v", err)
	}
}

// TestCapturedHandshake checks PTK derivation and the HMAC-SHA-1-128 MIC
// (key descriptor version 2) on a captured message 2 (aircrack-ng tests).
func TestCapturedHandshake(t *testing.T) {
	var c capture
	readJSON(t, "capture.json", &c)
	aa, spa, an, sn := mac(t, c.AA), mac(t, c.SPA), unhex(t, c.ANonce), unhex(t, c.SNonce)
	frame := unhex(t, c.Frame)
	for _, k := range []struct{ pmk, ptk, mic string }{{c.PMK, c.PTK640, c.MIC}, {c.PMK2, c.PTK2640, c.MIC2}} {
		ctx, _ := PTKContext(aa, spa, an, sn)
		full, err := PRF(unhex(t, k.pmk), "Pairwise key expansion", ctx, 640)
		if err != nil || !bytes.Equal(full, unhex(t, k.ptk)) {
			t.Errorf("PRF-640 = %x, %v", full, err)
		}
		ptk, err := SuitePSK.DerivePTK(unhex(t, k.pmk), aa, spa, an, sn)
		if err != nil || !bytes.Equal(append(append(ptk.KCK, ptk.KEK...), ptk.TK...), unhex(t, k.ptk)[:48]) {
			t.Errorf("PTK = %x, %v", ptk, err)
		}
		mic, err := SuitePSK.MIC(ptk.KCK, frame)
		if err != nil || !bytes.Equal(mic, unhex(t, k.mic)) {
			t.Errorf("MIC = %x, %v; want %s", mic, err, k.mic)
		}
	}
}

func TestSuiteParameters(t *testing.T) {
	pmk := bytes.Repeat([]byte{7}, 32)
	n := bytes.Repeat([]byte{1}, 32)
	for _, c := range []struct {
		s                 *Suite
		ver               uint16
		kck, kek, tk, mic int
	}{
		{SuitePSK, 2, 16, 16, 16, 16},
		{PSK(GCMP256), 2, 16, 16, 32, 16},
		{SuitePSKSHA256, 3, 16, 16, 16, 16},
		{SuiteSAE, 0, 16, 16, 16, 16},
		{SAE(GCMP256), 0, 16, 16, 32, 16},
		{SuiteSAEExt, 0, 16, 16, 16, 16},
		{SuiteSAEExt384, 0, 24, 32, 32, 24},
		{must(SAEExtKey(21, GCMP256)), 0, 32, 32, 32, 32},
	} {
		p, err := c.s.DerivePTK(pmk[:0], [6]byte{}, [6]byte{1}, n, n)
		if !errors.Is(err, pakeerr.ErrInvalidParameter) {
			t.Errorf("%s: empty PMK: %v", c.s.Name(), err)
		}
		p, err = c.s.DerivePTK(bytes.Repeat([]byte{7}, c.s.PMKSize()), [6]byte{}, [6]byte{1}, n, n)
		if err != nil || len(p.KCK) != c.kck || len(p.KEK) != c.kek || len(p.TK) != c.tk {
			t.Errorf("%s: PTK lengths %d/%d/%d, %v", c.s.Name(), len(p.KCK), len(p.KEK), len(p.TK), err)
		}
		mic, err := c.s.MIC(p.KCK, []byte("frame"))
		if err != nil || len(mic) != c.mic || c.s.MICSize() != c.mic || c.s.DescriptorVersion() != c.ver {
			t.Errorf("%s: MIC %d octets, version %d, %v", c.s.Name(), len(mic), c.s.DescriptorVersion(), err)
		}
	}
	if _, err := SAEExtKey(22, CCMP128); !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("SAEExtKey(22): %v", err)
	}
}
