//go:build !cgo

package hsmtest

// cgoEnabled reports whether this build has cgo, which the PKCS#11 binding
// needs.
const cgoEnabled = false
