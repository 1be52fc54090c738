package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/wg/daemon"
)

// cmdWGRun is the rotator daemon (package wg/daemon documents the
// configuration file). It stops on SIGINT or SIGTERM.
func cmdWGRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg run", stderr)
	cfgPath := fs.String("config", "", "configuration file (JSON, at most "+fileio.FormatSize(daemon.MaxConfigFile)+"; see 'go doc github.com/kexlab/kexlab/wg/daemon')")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *cfgPath == "" {
		return fmt.Errorf("%w: -config is required", errUsage)
	}
	cfg, err := daemon.Load(*cfgPath)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return daemon.Run(ctx, cfg, stdout)
}
