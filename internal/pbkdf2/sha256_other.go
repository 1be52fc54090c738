//go:build !amd64 || purego

package pbkdf2

// useSHANI is false: the SHA extensions code exists only on amd64, so Key
// calls crypto/pbkdf2 (see stdKeyInto).
var useSHANI = false

func block(h *[8]uint32, p []byte) { blockGeneric(h, p) }

func iterate(pads *[16]uint32, u, t *[8]uint32, n int) { iterateGeneric(pads, u, t, n) }

func prepareIterations() {}
