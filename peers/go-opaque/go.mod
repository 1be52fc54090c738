// A separate module, so that the main module's go.mod is untouched and
// `go test ./...` / `go vet ./...` at the repository root skip it.
module github.com/kexlab/kexlab/peers/go-opaque

go 1.22

require (
	github.com/bytemare/ksf v0.1.0
	github.com/bytemare/opaque v0.10.0
)

require (
	filippo.io/edwards25519 v1.0.0 // indirect
	filippo.io/nistec v0.0.2 // indirect
	github.com/bytemare/crypto v0.4.3 // indirect
	github.com/bytemare/hash v0.1.5 // indirect
	github.com/bytemare/hash2curve v0.1.3 // indirect
	github.com/gtank/ristretto255 v0.1.2 // indirect
	golang.org/x/crypto v0.7.0 // indirect
	golang.org/x/sys v0.6.0 // indirect
)
