// Package floor holds the one type in which every scheme package states
// its primitive limit (see pake.Floorer, which re-exports it as pake.Floor):
// scheme packages cannot import package pake, so the type lives below both.
package floor

// Floor is the primitive limit of one exchange of a scheme (both parties).
type Floor struct {
	// Ops lists the operations, one per entry, with their count, e.g.
	// "2 × P-256 ScalarBaseMult" or "1 × ML-KEM-512 Encaps".
	Ops []string
	// Online performs, once per call, the unavoidable operations of one
	// exchange between prepared parties (see pake.Preparer).
	Online func() error
	// Password performs, once per call, the password processing that a
	// complete exchange from credentials pays on top of Online — scrypt,
	// PBKDF2, the OPRF's key stretching — or is nil when there is none.
	// Registration is not part of it.
	Password func() error
	// Server performs, once per call, the server's share of Online: what
	// one login costs a server that holds the client's record (the
	// primitive limit of a PAKE service per core). It is nil for the
	// balanced schemes, whose two sides are peers.
	Server func() error
}
