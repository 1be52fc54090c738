package main

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/wgdemo"
)

func cmdWGDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg demo", stderr)
	n := fs.Int("n", 5, "number of rotations")
	modeName := fs.String("mode", "hardware-ratchet", "mode: timestamp, hash-ratchet, hardware-ratchet, fresh")
	if err := parse(fs, args); err != nil {
		return err
	}
	mode, err := wg.ParseMode(*modeName)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *n < 0 {
		return fmt.Errorf("%w: -n must not be negative", errUsage)
	}
	return wgdemo.Run(mode, *n, stdout)
}
