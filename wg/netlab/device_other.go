//go:build !linux

package netlab

import (
	"fmt"
	"os"
)

// RunDevice needs Linux (a TUN interface in a network namespace).
func RunDevice(iface string) int {
	fmt.Fprintln(os.Stderr, "device: netlab needs Linux")
	return 1
}

// Available reports why a Lab cannot run here: netlab needs Linux.
func Available() string { return "not Linux" }
