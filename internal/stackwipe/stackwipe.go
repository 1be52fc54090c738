// Package stackwipe clears dead stack frames that held secrets.
//
// Go zeroes neither the frames a function leaves below the stack pointer
// when it returns nor the old stack it leaves when a goroutine's stack is
// grown (copied to a larger one) or shrunk: a PSK that went through a
// call stays in that memory until something else overwrites it. The
// WireGuard rotator's goroutine calls Wipe once before handling any
// secret, which grows its stack past what a rotation needs (so rotations
// do not leave stacks behind), and after every poll, which overwrites the
// frames the rotation left (so an idle daemon's stack holds no PSK, and a
// stack shrunk by the garbage collector copies none).
package stackwipe

// Size is how much of the stack Wipe clears below its caller's frame:
// more than the deepest call chain of a rotation (key source, schedule,
// device update) needs.
const Size = 16 << 10

// Wipe clears Size bytes of the stack below its caller's frame.
//
//go:noinline
func Wipe() {
	var b [Size]byte
	clear(b[:])
	keep(&b)
}

// keep makes the compiler materialise and clear Wipe's array.
//
//go:noinline
func keep(b *[Size]byte) byte { return b[0] | b[Size-1] }
