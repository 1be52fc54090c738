//go:build !unix

package meter

import (
	"errors"
	"time"
)

// ProcessCPUClock names what ProcessCPU measures on this system.
const ProcessCPUClock = ""

// ProcessCPU is not available on this system.
func ProcessCPU() (time.Duration, error) {
	return 0, errors.ErrUnsupported
}
