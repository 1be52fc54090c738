package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11"
	"github.com/kexlab/kexlab/wg/keysource/tpm"
	"github.com/kexlab/kexlab/wg/rotator"
)

// wgConfig is the daemon's configuration file.
type wgConfig struct {
	Interface string      `json:"interface"` // WireGuard interface (wgctrl)
	Mode      string      `json:"mode"`
	StateDir  string      `json:"state_dir"`
	Self      string      `json:"public_key"` // this interface's public key, base64
	Peers     []string    `json:"peers"`      // peers' public keys, base64
	KeyFile   string      `json:"key_file,omitempty"`
	P11       *p11.Config `json:"pkcs11,omitempty"`
	TPM       *struct {
		Device string `json:"device"`
		Blob   string `json:"blob"`
	} `json:"tpm,omitempty"`
	MaxFailures int `json:"max_failures,omitempty"`
}

func decodeWGKey(s string) ([32]byte, error) {
	var k [32]byte
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != 32 {
		return k, fmt.Errorf("bad WireGuard public key %q", s)
	}
	copy(k[:], b)
	return k, nil
}

func cmdWGRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg run", stderr)
	cfgPath := fs.String("config", "", "configuration file (JSON)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *cfgPath == "" {
		return fmt.Errorf("%w: -config is required", errUsage)
	}
	b, err := os.ReadFile(*cfgPath)
	if err != nil {
		return err
	}
	var cfg wgConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("%s: %w", *cfgPath, err)
	}
	if cfg.Interface == "" || cfg.StateDir == "" || len(cfg.Peers) == 0 {
		return fmt.Errorf("%s: interface, state_dir and peers are required", *cfgPath)
	}
	mode, err := wg.ParseMode(cfg.Mode)
	if err != nil {
		return err
	}
	self, err := decodeWGKey(cfg.Self)
	if err != nil {
		return err
	}
	var src keysource.Source
	switch {
	case cfg.KeyFile != "":
		src, err = keysource.OpenFile(cfg.KeyFile)
	case cfg.P11 != nil:
		src, err = p11.Open(*cfg.P11)
	case cfg.TPM != nil:
		src, err = tpm.OpenFile(cfg.TPM.Device, cfg.TPM.Blob)
	default:
		err = fmt.Errorf("%s: one of key_file, pkcs11, tpm is required", *cfgPath)
	}
	if err != nil {
		return err
	}
	defer src.Close()
	dev, err := rotator.NewWGCtrl(cfg.Interface)
	if err != nil {
		return err
	}
	defer dev.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, len(cfg.Peers))
	for _, p := range cfg.Peers {
		pub, err := decodeWGKey(p)
		if err != nil {
			return err
		}
		name := p[:8]
		r, err := rotator.New(rotator.Config{
			Self: self, Peer: pub, Source: src, Device: dev, Mode: mode, MaxFailures: cfg.MaxFailures,
			StatePath: filepath.Join(cfg.StateDir, fmt.Sprintf("%x.state", pub)),
			Events:    func(e rotator.Event) { fmt.Fprintf(stdout, "%s %s: %v\n", time.Now().Format(time.RFC3339), name, e) },
		})
		if err != nil {
			return fmt.Errorf("peer %s: %w", name, err)
		}
		defer r.Close()
		go func() { done <- r.Run(ctx) }()
	}
	for range cfg.Peers {
		<-done
	}
	return nil
}
