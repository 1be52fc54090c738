//go:build !race

package modp

const raceEnabled = false
