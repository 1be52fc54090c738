//go:build !linux

package wgsoak

import (
	"context"
	"errors"

	"github.com/kexlab/kexlab/bench"
)

// Run needs Linux (network namespaces; see package wg/netlab).
func Run(ctx context.Context, cfg Config) (*bench.SoakResult, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return nil, errors.New("wg soak: needs Linux (network namespaces)")
}
