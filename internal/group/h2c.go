package group

import "errors"

// TEMPORARY placeholder, replaced by the RFC 9380 implementation.

// HashToCurve implements P256_XMD:SHA-256_SSWU_RO_ (RFC 9380 §3, §8.2).
func HashToCurve(msg, dst []byte) (*Point, error) { return nil, errors.New("not implemented") }

// EncodeToCurve implements P256_XMD:SHA-256_SSWU_NU_ (RFC 9380 §3, §8.2).
func EncodeToCurve(msg, dst []byte) (*Point, error) { return nil, errors.New("not implemented") }
