package blockkat

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"testing"

	"github.com/kexlab/kexlab/internal/testvec"
)

// hkdfCase is a case of Wycheproof's hkdf_sha256_test.json.
type hkdfCase struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	IKM     string   `json:"ikm"`
	Salt    string   `json:"salt"`
	Info    string   `json:"info"`
	Size    int      `json:"size"`
	OKM     string   `json:"okm"`
	Result  string   `json:"result"`
}

// TestWycheproofHKDFSHA256 runs every case of Wycheproof's
// hkdf_sha256_test.json through crypto/hkdf, the HKDF (RFC 5869) the
// schemes call, both as hkdf.Key and as hkdf.Extract followed by
// hkdf.Expand (the two ways the code base uses it). A "valid" case must
// give the file's output; an "invalid" one (an output longer than
// 255 · 32 octets, RFC 5869 §2.3) must be refused by both.
func TestWycheproofHKDFSHA256(t *testing.T) {
	var f struct {
		NumberOfTests int `json:"numberOfTests"`
		Wycheproof[hkdfCase]
	}
	testvec.JSON(t, "wycheproof/hkdf_sha256_test.json", &f)
	if f.Algorithm != "HKDF-SHA-256" {
		t.Fatalf("algorithm %q", f.Algorithm)
	}
	counts := map[string]int{}
	for _, g := range f.TestGroups {
		for _, tc := range g.Tests {
			b, err := Unhex(tc.IKM, tc.Salt, tc.Info, tc.OKM)
			if err != nil {
				t.Fatalf("tcId %d: %v", tc.TcID, err)
			}
			ikm, salt, info, okm := b[0], b[1], string(b[2]), b[3]
			key, errKey := hkdf.Key(sha256.New, ikm, salt, info, tc.Size)
			var expanded []byte
			prk, errExpand := hkdf.Extract(sha256.New, ikm, salt)
			if errExpand == nil {
				expanded, errExpand = hkdf.Expand(sha256.New, prk, info, tc.Size)
			}
			switch tc.Result {
			case "valid":
				if errKey != nil || !bytes.Equal(key, okm) {
					t.Errorf("tcId %d (%s %v): Key = %x, %v; want %s", tc.TcID, tc.Comment, tc.Flags, key, errKey, tc.OKM)
				}
				if errExpand != nil || !bytes.Equal(expanded, okm) {
					t.Errorf("tcId %d (%s %v): Extract+Expand = %x, %v; want %s", tc.TcID, tc.Comment, tc.Flags, expanded, errExpand, tc.OKM)
				}
			case "invalid":
				if errKey == nil || errExpand == nil {
					t.Errorf("tcId %d (%s %v, size %d): accepted (Key: %v, Extract+Expand: %v)", tc.TcID, tc.Comment, tc.Flags, tc.Size, errKey, errExpand)
				}
			default: // the file has no "acceptable" HKDF case
				t.Fatalf("tcId %d: unexpected result %q", tc.TcID, tc.Result)
			}
			counts[tc.Result]++
		}
	}
	if n := counts["valid"] + counts["invalid"]; n != f.NumberOfTests || counts["valid"] == 0 || counts["invalid"] == 0 {
		t.Errorf("checked %v cases, the file has %d", counts, f.NumberOfTests)
	}
	t.Logf("%d cases: %d valid, %d invalid", f.NumberOfTests, counts["valid"], counts["invalid"])
}
