// Package pakeerr holds the sentinel errors shared by every PAKE scheme.
//
// It sits at the bottom of the import graph so that scheme packages
// (pake/<scheme>) can return these errors without importing package pake,
// which re-exports them as pake.ErrInvalidMessage and so on. Callers test
// with errors.Is; scheme packages wrap the sentinels with detail.
package pakeerr

import "errors"

var (
	// ErrInvalidMessage: a peer's message is malformed: wrong length, a point
	// off the curve or equal to the identity, a scalar out of range, an
	// element not in the group.
	ErrInvalidMessage = errors.New("pake: invalid message")
	// ErrAuthFailed: key confirmation failed (wrong password, or a message
	// was modified in transit).
	ErrAuthFailed = errors.New("pake: authentication failed")
	// ErrState: a party was used out of order: a message after it finished
	// or failed, or a session key asked for before it finished.
	ErrState = errors.New("pake: party used out of order")
	// ErrInvalidParameter: bad configuration or credentials (e.g. an empty
	// password, a record that does not parse, an unknown suite).
	ErrInvalidParameter = errors.New("pake: invalid parameter")
	// ErrRandom: the randomness source failed.
	ErrRandom = errors.New("pake: randomness source failed")
)
