module github.com/kexlab/kexlab

go 1.26.0

require (
	filippo.io/bigmod v0.1.0 // indirect
	filippo.io/nistec v0.0.4 // indirect
	github.com/cloudflare/circl v1.6.5 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
