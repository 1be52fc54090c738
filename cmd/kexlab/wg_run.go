package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/wg/daemon"
)

// cmdWGRun is the rotator daemon (package wg/daemon documents the
// configuration file and what it refuses at start). It stops on SIGINT or
// SIGTERM, and exits non-zero when its key source stays unusable.
func cmdWGRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg run", stderr)
	cfgPath := fs.String("config", "", "configuration file (JSON, at most "+fileio.FormatSize(daemon.MaxConfigFile)+"; see 'go doc github.com/kexlab/kexlab/wg/daemon')")
	reset := fs.Bool("reset-state", false, "discard the state files and restart every peer's chain in the configured mode (do it on both peers)")
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
	cfg.ResetState = *reset
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return daemon.Run(ctx, cfg, stdout)
}

// cmdWGStatus prints what the daemon's state directory says of each peer.
func cmdWGStatus(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg status", stderr)
	cfgPath := fs.String("config", "", "the daemon's configuration file (its state_dir is read)")
	dir := fs.String("state-dir", "", "the daemon's state directory (instead of -config)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*cfgPath == "") == (*dir == "") {
		return fmt.Errorf("%w: give one of -config and -state-dir", errUsage)
	}
	if *cfgPath != "" {
		cfg, err := daemon.Load(*cfgPath)
		if err != nil {
			return err
		}
		*dir = cfg.StateDir
	}
	sts, err := daemon.ReadStatus(*dir)
	if err != nil {
		return err
	}
	if *asJSON {
		e := json.NewEncoder(stdout)
		e.SetIndent("", "  ")
		return e.Encode(sts)
	}
	if len(sts) == 0 {
		fmt.Fprintf(stdout, "no peer state in %s (the daemon has not run yet)\n", *dir)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PEER\tMODE\tEPOCH\tINDEX\tFALLEN BACK\tFAILURES\tLAST HANDSHAKE\tLAST EVENT")
	ago := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339) + " (" + time.Since(t).Round(time.Second).String() + " ago)"
	}
	for _, s := range sts {
		last := s.LastEvent
		if !s.LastEventAt.IsZero() {
			last = s.LastEventAt.UTC().Format(time.RFC3339) + " " + last
		}
		if s.Problem != "" {
			last = "PROBLEM: " + s.Problem
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%v\t%d\t%s\t%s\n", s.Peer, s.Mode, s.Epoch, s.Index, s.FallenBack, s.Failures, ago(s.LastHandshake), last)
	}
	return tw.Flush()
}
