package stackwipe

import (
	"runtime/debug"
	"testing"
	"unsafe"
)

//go:noinline
func leave(secret byte) uintptr {
	var b [4096]byte
	for i := range b {
		b[i] = secret
	}
	keep2(&b)
	return uintptr(unsafe.Pointer(&b[0]))
}

//go:noinline
func keep2(b *[4096]byte) byte { return b[0] }

// After Wipe, the frame a returned call left below its caller holds no
// trace of what it wrote. The test runs in a goroutine whose stack Wipe
// grew first, so the stack does not move and the dead frame's address
// stays inside it.
func TestWipe(t *testing.T) {
	// No garbage collection while the dead frame is read: a collection
	// could shrink (move) the goroutine's stack and leave the address
	// pointing into the old copy.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	done := make(chan [2]int)
	go func() {
		Wipe() // grow the stack first, so it is not moved below
		addr := leave(0x5a)
		// The frame is dead, so a pointer to it is made from its address
		// (through memory, as the garbage collector never follows it).
		p := *(**[4096]byte)(unsafe.Pointer(&addr))
		before := 0
		for _, c := range p {
			if c == 0x5a {
				before++
			}
		}
		Wipe()
		after := 0
		for _, c := range p {
			if c == 0x5a {
				after++
			}
		}
		done <- [2]int{before, after}
	}()
	got := <-done
	if got[0] < 4000 || got[1] != 0 {
		t.Fatalf("secret bytes before/after Wipe: %v", got)
	}
}
