package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/netlab"
	"github.com/kexlab/kexlab/wg/wgsoak"
)

// soakFlags are kexlab wg bench's -soak-* flags (package wg/wgsoak).
type soakFlags struct {
	fs                *flag.FlagSet
	modes             *string
	sample, keepalive *time.Duration
	tpmB, tpmBlobB    *string
	dir               *string
}

func addSoakFlags(fs *flag.FlagSet) soakFlags {
	return soakFlags{
		fs:        fs,
		modes:     fs.String("soak-modes", "", "with -soak: the modes, comma-separated (default all: timestamp,hash-ratchet,hardware-ratchet,fresh)"),
		sample:    fs.Duration("soak-sample", wgsoak.DefaultSample, "with -soak: the sampling interval (each interval gives one rate per process; at most -soak, which it is by default when shorter)"),
		keepalive: fs.Duration("soak-keepalive", wgsoak.DefaultKeepalive, "with -soak: the persistent keepalive of one side, whole seconds (WireGuard re-keys on the first packet after 120 s: a handshake every ~2 min)"),
		tpmB:      fs.String("soak-tpm-b", "", "with -soak and -tpm: the second daemon's TPM, when it cannot share -tpm (a swtpm socket serves one client at a time)"),
		tpmBlobB:  fs.String("soak-tpm-blob-b", "", "with -soak-tpm-b: its key blob (the same key imported)"),
		dir:       fs.String("soak-dir", "", "with -soak: keep each combination's daemon configurations, states and process logs in this directory, in subdirectories SOURCE-MODE that a new run replaces (default: a temporary one, removed)"),
	}
}

// given reports whether a -soak-* flag is on the command line.
func (f soakFlags) given() bool {
	for _, n := range []string{"soak-modes", "soak-sample", "soak-keepalive", "soak-tpm-b", "soak-tpm-blob-b", "soak-dir"} {
		if flagSet(f.fs, n) {
			return true
		}
	}
	return false
}

// soakEnv is added to the environment of the processes the soak starts
// (the tests set it to run this binary's main).
var soakEnv []string

// cmdWGSoak is kexlab wg bench -soak: package wgsoak over the modes of
// -soak-modes and the key sources: a key file always (-key-file, or a new
// one in a temporary directory), PKCS#11 and TPM when their flags are
// given.
func cmdWGSoak(d time.Duration, so soakFlags, sf sourceFlags, label, results string, stdout, stderr io.Writer) error {
	cfg := wgsoak.Config{Duration: d, Sample: *so.sample, Keepalive: *so.keepalive, Label: label, Env: soakEnv, Progress: stderr, Dir: *so.dir}
	if cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
			return err
		}
	}
	if *so.modes != "" {
		for _, name := range strings.Split(*so.modes, ",") {
			m, err := wg.ParseMode(strings.TrimSpace(name))
			if err != nil {
				return fmt.Errorf("%w: -soak-modes: unknown mode %q", errUsage, name)
			}
			cfg.Modes = append(cfg.Modes, m)
		}
	}
	if !flagSet(so.fs, "soak-sample") {
		cfg.Sample = min(cfg.Sample, d)
	}
	if cfg.Sample < 100*time.Millisecond || cfg.Sample > d {
		return fmt.Errorf("%w: -soak-sample %v: want 100ms to -soak (%v)", errUsage, cfg.Sample, d)
	}
	if *so.keepalive < time.Second || *so.keepalive%time.Second != 0 || *so.keepalive > 65535*time.Second {
		return fmt.Errorf("%w: -soak-keepalive %v: want whole seconds from 1s to 65535s", errUsage, *so.keepalive)
	}
	srcs, cleanup, err := soakSources(sf, so)
	defer cleanup()
	if err != nil {
		return err
	}
	cfg.Sources = srcs
	// Every selected source must open here, and is closed again before
	// the daemons open it (a swtpm socket takes one client at a time).
	sources, err := sf.open()
	for _, s := range sources {
		s.Close()
	}
	if err != nil {
		return err
	}
	if why := netlab.Available(); why != "" {
		return fmt.Errorf("-soak needs network namespaces: %s", why)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := wgsoak.Run(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("-soak interrupted; the labs are removed and nothing was written")
		}
		if errors.Is(err, wgsoak.ErrConfig) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		return err
	}
	m := r.Machine
	fmt.Fprintf(stdout, "machine: %s, %d cores, %s, Linux %s, load %s\n", m.CPUModel, m.Cores, m.GoVersion, m.Kernel, m.LoadAvg)
	if err := wgsoak.Table(stdout, r); err != nil {
		return err
	}
	if results == "" {
		return nil
	}
	f, err := os.Create(results)
	if err != nil {
		return err
	}
	if err := export.WriteSoak(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// soakSources turns the source flags into the daemons' key sources, with
// absolute paths (the daemons read them from their own configuration). The
// caller calls cleanup, also on error.
func soakSources(sf sourceFlags, so soakFlags) (srcs []wgsoak.Source, cleanup func(), err error) {
	cleanup = func() {}
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	key := abs(*sf.keyFile)
	if key == "" {
		dir, err := os.MkdirTemp("", "kexlab-soak-key-")
		if err != nil {
			return nil, cleanup, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		key = filepath.Join(dir, "psk.key")
		if err := keysource.CreateKeyFile(key, nil); err != nil {
			return nil, cleanup, err
		}
	}
	srcs = append(srcs, wgsoak.Source{Kind: "file", Name: key, KeyFile: key})
	if *sf.p11Module != "" {
		srcs = append(srcs, wgsoak.Source{Kind: "pkcs11", Name: *sf.p11Token + "/" + *sf.p11Key, PKCS11: &wgsoak.PKCS11{
			Module: abs(*sf.p11Module), TokenLabel: *sf.p11Token, KeyLabel: *sf.p11Key, PINFile: abs(*sf.pin), PINEnv: *sf.pinEnv}})
	}
	if (*so.tpmB != "") != (*so.tpmBlobB != "") || *so.tpmB != "" && *sf.tpmDev == "" {
		return nil, cleanup, fmt.Errorf("%w: -soak-tpm-b and -soak-tpm-blob-b go together, with -tpm", errUsage)
	}
	if *sf.tpmAuth != "" {
		return nil, cleanup, fmt.Errorf("%w: -soak: the daemon's configuration takes no TPM authorization (-tpm-auth-file)", errUsage)
	}
	if *sf.tpmDev != "" {
		dev, err := soakTPM(*sf.tpmDev, abs)
		if err != nil {
			return nil, cleanup, err
		}
		s := wgsoak.Source{Kind: "tpm", Name: *sf.tpmDev, TPM: &wgsoak.TPM{Device: dev, Blob: abs(*sf.tpmBlob)}}
		if *so.tpmB != "" {
			devB, err := soakTPM(*so.tpmB, abs)
			if err != nil {
				return nil, cleanup, err
			}
			s.TPMB = &wgsoak.TPM{Device: devB, Blob: abs(*so.tpmBlobB)}
		} else if strings.HasPrefix(dev, "unix:") {
			return nil, cleanup, fmt.Errorf("%w: -tpm %s: a TPM emulator's socket serves one client at a time and the lab's two daemons each need one: "+
				"give the second its own with -soak-tpm-b and -soak-tpm-blob-b, or use /dev/tpmrm0", errUsage, *sf.tpmDev)
		}
		srcs = append(srcs, s)
	}
	return srcs, cleanup, nil
}

// soakTPM checks that the daemons can reach TPM dev from inside the lab's
// namespaces (a device or a unix socket; a TCP address would be the
// namespace's own loopback) and makes a socket path absolute.
func soakTPM(dev string, abs func(string) string) (string, error) {
	switch {
	case strings.HasPrefix(dev, "tcp:"):
		return "", fmt.Errorf("%w: -soak: TPM %s: a TCP address is not reachable from the lab's network namespaces; use unix:PATH or a device", errUsage, dev)
	case strings.HasPrefix(dev, "unix:"):
		return "unix:" + abs(strings.TrimPrefix(dev, "unix:")), nil
	}
	return dev, nil
}
