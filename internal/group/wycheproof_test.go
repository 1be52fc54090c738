package group

import (
	"bytes"
	encasn1 "encoding/asn1"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/kexlab/kexlab/internal/testvec"
)

// ecdhX is the shared secret of Wycheproof's ECDH files: the x coordinate
// of d·P, with d the file's private key. The key is a big-endian integer
// (with a leading zero octet when its top bit is set, as an ASN.1 INTEGER)
// that must lie below n.
func ecdhX(t *testing.T, private string, p *Point) ([]byte, error) {
	t.Helper()
	b := bytes.TrimLeft(mustHex(t, private), "\x00")
	if len(b) > ScalarSize {
		t.Fatalf("private key %s is longer than %d octets", private, ScalarSize)
	}
	d, err := NewScalar().SetCanonicalBytes(append(make([]byte, ScalarSize-len(b)), b...))
	if err != nil {
		t.Fatalf("private key %s: %v", private, err)
	}
	return NewPoint().ScalarMult(d, p).BytesX()
}

// Errors of parseP256SPKI before the point reaches Point.SetBytes.
var (
	errSPKI  = errors.New("not a DER SubjectPublicKeyInfo with an EC public key")
	errCurve = errors.New("EC parameters are not namedCurve secp256r1")
)

var (
	oidECPublicKey = encasn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1} // RFC 5480 §2.1.1
	oidSecp256r1   = encasn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7}
)

// parseP256SPKI unwraps a SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) in
// strict DER whose algorithm is id-ecPublicKey with the namedCurve
// secp256r1 (RFC 5480 §2.1.1: specifiedCurve and other curves are refused)
// and decodes the subjectPublicKey, an ECPoint (SEC 1 §2.3.4), with
// Point.SetBytes: the point decoding is the project's own.
func parseP256SPKI(der []byte) (*Point, error) {
	in := cryptobyte.String(der)
	var spki, alg cryptobyte.String
	var algorithm, curve encasn1.ObjectIdentifier
	if !in.ReadASN1(&spki, asn1.SEQUENCE) || !in.Empty() || !spki.ReadASN1(&alg, asn1.SEQUENCE) ||
		!alg.ReadASN1ObjectIdentifier(&algorithm) || !algorithm.Equal(oidECPublicKey) {
		return nil, errSPKI
	}
	if !alg.PeekASN1Tag(asn1.OBJECT_IDENTIFIER) {
		return nil, fmt.Errorf("%w: not a named curve", errCurve)
	}
	var key encasn1.BitString
	if !alg.ReadASN1ObjectIdentifier(&curve) || !alg.Empty() ||
		!spki.ReadASN1BitString(&key) || !spki.Empty() || key.BitLength%8 != 0 {
		return nil, errSPKI
	}
	if !curve.Equal(oidSecp256r1) {
		return nil, fmt.Errorf("%w: curve %v", errCurve, curve)
	}
	return NewPoint().SetBytes(key.Bytes)
}

// TestWycheproofECDHSPKI runs every case of Wycheproof's
// ecdh_secp256r1_test.json (public keys as X.509 SubjectPublicKeyInfo):
// the key is unwrapped by parseP256SPKI, decoded by Point.SetBytes, and
// the shared secret computed by ScalarMult and BytesX.
//
//   - "valid": accepted, and the shared secret is the file's.
//   - "invalid": refused, by the DER parse, the curve check or the point
//     decoding, with one of their typed errors.
//   - "acceptable" (BER quirks, explicit parameters equal to P-256's,
//     compressed points): either refused with a typed error or accepted
//     with the file's shared secret.
func TestWycheproofECDHSPKI(t *testing.T) {
	var f testvec.ECDHFile
	testvec.JSON(t, "wycheproof/ecdh_secp256r1_test.json", &f)
	checked := 0
	outcomes := map[string]int{} // "result: outcome"
	for _, g := range f.TestGroups {
		if g.Curve != "secp256r1" || g.Encoding != "asn" {
			t.Fatalf("unexpected group: curve %q, encoding %q", g.Curve, g.Encoding)
		}
		for _, tc := range g.Tests {
			checked++
			name := fmt.Sprintf("tcId %d (%s, %s %v)", tc.TcID, tc.Result, tc.Comment, tc.Flags)
			p, err := parseP256SPKI(mustHex(t, tc.Public))
			var shared []byte
			if err == nil {
				shared, err = ecdhX(t, tc.Private, p)
			}
			outcome := "accepted"
			switch {
			case errors.Is(err, errSPKI):
				outcome = "refused: DER"
			case errors.Is(err, errCurve):
				outcome = "refused: curve"
			case errors.Is(err, ErrInvalidEncoding), errors.Is(err, ErrIdentity):
				outcome = "refused: point"
			case err != nil:
				t.Errorf("%s: untyped error %v", name, err)
				continue
			}
			outcomes[tc.Result+": "+outcome]++
			switch tc.Result {
			case "valid", "acceptable":
				if err == nil && !bytes.Equal(shared, mustHex(t, tc.Shared)) {
					t.Errorf("%s: shared secret %x, want %s", name, shared, tc.Shared)
				}
				if err != nil && tc.Result == "valid" {
					t.Errorf("%s: refused: %v", name, err)
				}
			case "invalid":
				if err == nil {
					t.Errorf("%s: accepted, shared secret %x", name, shared)
				}
			default:
				t.Fatalf("%s: unknown result", name)
			}
		}
	}
	if checked != f.NumberOfTests || checked == 0 {
		t.Errorf("checked %d cases, the file has %d", checked, f.NumberOfTests)
	}
	var lines []string
	for k, n := range outcomes {
		lines = append(lines, fmt.Sprintf("%s %d", k, n))
	}
	slices.Sort(lines)
	t.Logf("%d cases: %s", checked, strings.Join(lines, ", "))
}
