package main

import "github.com/kexlab/kexlab/internal/pbkdf2"

// pbkdf2Impl names the implementation kexlabPBKDF2 calls, for the output.
// Before internal/pbkdf2 existed the pake packages called crypto/pbkdf2
// (pbkdf2.Key(sha256.New, string(password), salt, iter, keyLen)); to time
// that instead, call it here and say so in pbkdf2Impl.
const pbkdf2Impl = "internal/pbkdf2 (kexlab's PBKDF2-HMAC-SHA256)"

// kexlabPBKDF2 is kexlab's PBKDF2-HMAC-SHA256: the one place that says
// which implementation the PBKDF2 row times.
func kexlabPBKDF2(password, salt []byte, iter, keyLen int) []byte {
	return pbkdf2.Key(password, salt, iter, keyLen)
}
