//go:build !linux

package meter

import (
	"errors"
	"time"
)

// ThreadCPUClock names what ThreadCPU measures on this system.
const ThreadCPUClock = ""

// ThreadCPU is not available on this system.
func ThreadCPU() (time.Duration, error) {
	return 0, errors.ErrUnsupported
}
