package cpace

import (
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/pakeerr"
)

// The group environment G of the suite CPACE-P256_XMD:SHA-256_SSWU_NU_-SHA256
// (§5, §8.4.3) and the hash H = SHA-256 (§6.2).
const (
	// Suite is the cipher suite's name (§5).
	Suite = "CPACE-P256_XMD:SHA-256_SSWU_NU_-SHA256"
	// DSI is G.DSI: b"CPace" || the RFC 9380 suite name of encode_to_curve
	// (§8.4.3).
	DSI = "CPaceP256_XMD:SHA-256_SSWU_NU_"
	// dst is G.DST = G.DSI || b"_DST" (§8.4.3).
	dst = DSI + "_DST"
	// dsiISK is G.DSI || b"_ISK", the first field of the ISK hash (§7.2).
	dsiISK = DSI + "_ISK"
	// sidOutputLabel prefixes the transcript for sid_output (§10.6).
	sidOutputLabel = "CPaceSidOutput"
	// hashBlockSize is H.s_in_bytes, SHA-256's input block size (§6.2).
	hashBlockSize = sha256.BlockSize
	// ElementSize is the length of an encoded point Ya or Yb: the SEC 1
	// uncompressed encoding, which §8.4.3 says implementations SHOULD use.
	ElementSize = group.UncompressedPointSize
	// KeySize is the length of ISK and of sid_output (H.b_in_bytes).
	KeySize = sha256.Size
)

// calculateGenerator returns g = G.calculate_generator(H, PRS, CI, sid) =
// encode_to_curve(generator_string(G.DSI, PRS, CI, sid, H.s_in_bytes),
// G.DST) with P256_XMD:SHA-256_SSWU_NU_ of RFC 9380 (§8.4.3). The mapping is
// constant time in its input (internal/group).
func calculateGenerator(prs, ci, sid []byte) (*group.Point, error) {
	g, err := group.EncodeToCurve(generatorString([]byte(DSI), prs, ci, sid, hashBlockSize), []byte(dst))
	if err != nil {
		return nil, fmt.Errorf("cpace: calculate_generator: %w", err)
	}
	// SSWU on a prime-order curve never yields the identity; checked anyway
	// because everything after depends on it.
	if g.IsIdentity() == 1 {
		return nil, fmt.Errorf("%w: cpace: generator is the identity", pakeerr.ErrInvalidParameter)
	}
	return g, nil
}

// sampleScalar returns y = G.sample_scalar(), uniform in [1, n-1]: 48 random
// bytes reduced modulo n and resampled if zero, the oversample-and-reduce
// method that §10.7 allows as an alternative to rejection sampling.
func sampleScalar(rand io.Reader) (*group.Scalar, error) {
	y, err := group.RandomScalar(rand)
	if err != nil {
		return nil, fmt.Errorf("%w: cpace: sample_scalar: %w", pakeerr.ErrRandom, err)
	}
	return y, nil
}

// scalarMult returns G.scalar_mult(y, g): the SEC 1 uncompressed encoding of
// y*g (§8.4.3).
func scalarMult(y *group.Scalar, g *group.Point) []byte {
	return group.NewPoint().ScalarMult(y, g).Bytes()
}

// decodeElement implements is_valid(X) of §8.4.3 (IEEE 1363 A.16.10): it
// accepts only the SEC 1 uncompressed encoding of a point on P-256 other
// than the identity. The errors wrap pakeerr.ErrInvalidMessage and one of
// group.ErrIdentity (X = 0x00, the SEC 1 encoding of the point at infinity)
// or group.ErrInvalidEncoding (anything else that is not a valid point).
func decodeElement(x []byte) (*group.Point, error) {
	if len(x) == 1 && x[0] == 0 {
		return nil, fmt.Errorf("%w: cpace: %w", pakeerr.ErrInvalidMessage, group.ErrIdentity)
	}
	if len(x) != ElementSize || x[0] != 4 {
		return nil, fmt.Errorf("%w: cpace: %w: want %d-byte uncompressed point", pakeerr.ErrInvalidMessage, group.ErrInvalidEncoding, ElementSize)
	}
	p, err := group.NewPoint().SetBytes(x)
	if err != nil {
		return nil, fmt.Errorf("%w: cpace: %w", pakeerr.ErrInvalidMessage, err)
	}
	return p, nil
}

// scalarMultVfy returns K = G.scalar_mult_vfy(y, X) (§8.4.3): it verifies X
// with is_valid, computes y*X and returns its 32-byte x-coordinate (the
// ECSVDP-DH shared secret z of IEEE 1363 §7.2.1). Where the draft returns
// the neutral element G.I ("error") it returns an error wrapping
// pakeerr.ErrInvalidMessage, so that the caller aborts (§7.2, §9).
func scalarMultVfy(y *group.Scalar, x []byte) ([]byte, error) {
	p, err := decodeElement(x)
	if err != nil {
		return nil, err
	}
	k, err := group.NewPoint().ScalarMult(y, p).BytesX()
	if err != nil {
		// Unreachable in a prime-order group with y != 0 and X valid.
		return nil, fmt.Errorf("%w: cpace: y*X: %w", pakeerr.ErrInvalidMessage, err)
	}
	return k, nil
}

// intermediateSessionKey returns ISK = H.hash(lv_cat(G.DSI || b"_ISK", sid,
// K) || transcript) (§7.2).
func intermediateSessionKey(sid, k, transcript []byte) []byte {
	h := sha256.New()
	h.Write(LVCat([]byte(dsiISK), sid, k))
	h.Write(transcript)
	return h.Sum(nil)
}

// sidOutput returns sid_output = H.hash(b"CPaceSidOutput" || transcript)
// (§10.6).
func sidOutput(transcript []byte) []byte {
	h := sha256.New()
	h.Write([]byte(sidOutputLabel))
	h.Write(transcript)
	return h.Sum(nil)
}
