package ace

import (
	"testing"

	"github.com/kexlab/kexlab/wifi/lwc/internal/aeadtest"
)

var aeadCipher = aeadtest.Cipher{New: New, ErrOpen: ErrOpen, KeySize: KeySize, NonceSize: NonceSize, TagSize: TagSize}

// TestAEADKAT runs every record of lwc/ACE.txt (NIST LWC round 2, ACE-AE-128) through
// aeadtest.TestKATs: Seal and Open, in place and after a prefix, and
// tampering rejected without releasing plaintext.
func TestAEADKAT(t *testing.T) { aeadtest.TestKATs(t, aeadCipher, "lwc/ACE.txt", 1089) }

// TestAEADErrors: key and nonce lengths and short ciphertexts.
func TestAEADErrors(t *testing.T) { aeadtest.TestErrors(t, aeadCipher) }

func FuzzOpen(f *testing.F)     { aeadtest.FuzzOpen(f, aeadCipher) }
func FuzzSealOpen(f *testing.F) { aeadtest.FuzzSealOpen(f, aeadCipher) }

func BenchmarkSeal(b *testing.B) { aeadtest.BenchmarkSeal(b, aeadCipher) }
func BenchmarkOpen(b *testing.B) { aeadtest.BenchmarkOpen(b, aeadCipher) }
