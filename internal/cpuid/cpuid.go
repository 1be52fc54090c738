// Package cpuid reports the x86-64 instruction-set extensions that
// kexlab's own assembly uses (internal/group/modp: BMI2 and ADX;
// internal/pbkdf2: the SHA extensions, SSSE3, SSE4.1, and AVX for
// VZEROUPPER), read once with CPUID and XGETBV. golang.org/x/sys/cpu has
// no field for the SHA extensions, hence this package. On other
// architectures, and with the purego build tag, every field is false.
package cpuid

// X86 holds the features of the running CPU.
var X86 Features

// Features are the extensions the assembly checks for.
type Features struct {
	BMI2, ADX    bool // MULX; ADCX and ADOX
	SSSE3, SSE41 bool
	SHA          bool // the SHA extensions (SHA256RNDS2, SHA256MSG1/2)
	AVX          bool // AVX, with the YMM state enabled by the operating system
}
