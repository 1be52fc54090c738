module github.com/kexlab/kexlab

go 1.26.0

require (
	filippo.io/bigmod v0.1.0
	filippo.io/nistec v0.0.4
	github.com/cloudflare/circl v1.6.5
	github.com/google/go-tpm v0.9.8
	github.com/miekg/pkcs11 v1.1.2
	golang.org/x/crypto v0.58.0
)

require golang.org/x/sys v0.49.0 // indirect
