//go:build amd64 && !purego

package pbkdf2

// useSHANI selects the SHA extensions code; tests clear it to run the
// portable code (with forcePortable) or crypto/pbkdf2 on the same machine.
var useSHANI = hasSHANI

// hasSHANI reports the SHA extensions and the SSSE3 (PSHUFB, PALIGNR) and
// SSE4.1 (PBLENDW) instructions the assembly also uses; hasAVX reports AVX
// enabled by the operating system, so that VZEROUPPER may run.
var hasSHANI, hasAVX = detect()

func detect() (sha, avxOK bool) {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false, false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	_, ebx7, _, _ := cpuid(7, 0)
	const (
		ssse3   = 1 << 9  // CPUID.1:ECX
		sse41   = 1 << 19 // CPUID.1:ECX
		osxsave = 1 << 27 // CPUID.1:ECX
		avx     = 1 << 28 // CPUID.1:ECX
		shaExt  = 1 << 29 // CPUID.(EAX=7,ECX=0):EBX
	)
	sha = ecx1&ssse3 != 0 && ecx1&sse41 != 0 && ebx7&shaExt != 0
	if ecx1&osxsave != 0 && ecx1&avx != 0 {
		// XCR0 bits 1 and 2: the OS saves the XMM and YMM state.
		xcr0, _ := xgetbv()
		avxOK = xcr0&6 == 6
	}
	return sha, avxOK
}

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax, edx uint32)

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
