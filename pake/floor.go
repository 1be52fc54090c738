package pake

import (
	"io"

	"github.com/kexlab/kexlab/internal/floor"
)

// Floorer is implemented by schemes that can measure their primitive limit:
// the operations that any implementation of the scheme has to perform in
// one exchange, whatever its engineering — the group operations
// (base, fixed-base and variable-base multiplications, decodings of peer
// elements), modular exponentiations, KEM calls and password hashes the
// protocol prescribes. Everything else an implementation does (encodings,
// transcript hashes, key schedule, allocation, state handling) is overhead
// the ratio exchange/floor exposes. The harness measures the floor in the
// same run as the exchanges, interleaved with them, and reports the ratio.
type Floorer interface {
	// Floor prepares, off the clock, inputs of the sizes a real exchange
	// of this scheme uses (random scalars and exponents, a valid peer
	// element, fixed-base tables an implementation may precompute once)
	// and returns the operations.
	Floor(rand io.Reader) (*Floor, error)
}

// Floor is the primitive limit of one exchange of a scheme (both parties):
// Ops, Online and Password (see package internal/floor, where scheme
// packages, which cannot import pake, build it).
type Floor = floor.Floor
