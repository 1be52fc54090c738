//go:build unix

package keysource

import (
	"errors"
	"syscall"
)

// oNoFollow makes WriteNewFile's open fail on a symbolic link.
const oNoFollow = syscall.O_NOFOLLOW

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
