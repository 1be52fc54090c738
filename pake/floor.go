package pake

import "io"

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

// Floor is the primitive limit of one exchange of a scheme (both parties).
type Floor struct {
	// Ops lists the operations, one per entry, with their count, e.g.
	// "2 × P-256 ScalarBaseMult" or "1 × ML-KEM-512 Encaps".
	Ops []string
	// Online performs, once per call, the unavoidable operations of one
	// exchange between prepared parties (see Preparer): what an online
	// exchange (the harness's "online" sample) cannot avoid.
	Online func() error
	// Password performs, once per call, the password processing that a
	// complete exchange (NewClient and NewServer from credentials, the
	// harness's "full" sample) pays on top of Online — scrypt, PBKDF2,
	// the OPRF's key stretching — or is nil when there is none.
	// Registration is not part of it.
	Password func() error
}
