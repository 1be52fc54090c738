//go:build amd64 && !purego

package pbkdf2

import "github.com/kexlab/kexlab/internal/cpuid"

// useSHANI selects the SHA extensions code; tests clear it to run the
// portable code (with forcePortable) or crypto/pbkdf2 on the same machine.
var useSHANI = hasSHANI

// hasSHANI reports the SHA extensions and the SSSE3 (PSHUFB, PALIGNR) and
// SSE4.1 (PBLENDW) instructions the assembly also uses; hasAVX reports AVX
// enabled by the operating system, so that VZEROUPPER may run.
var (
	hasSHANI = cpuid.X86.SHA && cpuid.X86.SSSE3 && cpuid.X86.SSE41
	hasAVX   = cpuid.X86.AVX
)

// vzeroupper clears the upper halves of the YMM registers. Code that
// returns with them dirty (circl's AVX2 code does) makes every later
// legacy-SSE instruction slow on some CPUs, and the SHA extensions exist
// only in legacy-SSE form.
//
//go:noescape
func vzeroupper()

// blockSHANI is blockGeneric with the SHA extensions.
//
//go:noescape
func blockSHANI(h *[8]uint32, p []byte)

// iterateSHANI is iterateGeneric with the SHA extensions, the whole loop in
// assembly.
//
//go:noescape
func iterateSHANI(pads *[16]uint32, u, t *[8]uint32, n int)

func block(h *[8]uint32, p []byte) {
	if useSHANI {
		blockSHANI(h, p)
	} else {
		blockGeneric(h, p)
	}
}

func iterate(pads *[16]uint32, u, t *[8]uint32, n int) {
	if useSHANI {
		iterateSHANI(pads, u, t, n)
	} else {
		iterateGeneric(pads, u, t, n)
	}
}

// prepareIterations runs at the start of each derivation.
func prepareIterations() {
	if useSHANI && hasAVX {
		vzeroupper()
	}
}
