package main

import (
	"fmt"
	"io"

	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11"
	"github.com/kexlab/kexlab/wg/keysource/tpm"
)

const wgUsage = `usage: kexlab wg <command> [flags]

commands:
  demo   two in-process WireGuard peers (wireguard-go on netstack) with a file
         key: prints each PSK rotation and an echo through the tunnel (-mode)
  bench  latency of one Derive per key source and of one PSK update per mode
         (-results FILE for kexlab report); -soak DURATION: the daemon's CPU
         time and wakeups per hour beside an idle WireGuard, per mode and
         key source, in two network namespaces (root)
  key    provision keys: a key file, a PKCS#11 key (KEK import, generate,
         export, import), a TPM blob; -kcv prints a key check value
  run    the rotator daemon: kexlab wg run -config FILE [-reset-state]
  status each peer's mode, position, last handshake, failures and last event,
         from the daemon's state directory (-config FILE or -state-dir DIR)
`

func cmdWG(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, wgUsage)
		return fmt.Errorf("%w: no wg command", errUsage)
	}
	switch args[0] {
	case "demo":
		return cmdWGDemo(args[1:], stdout, stderr)
	case "bench":
		return cmdWGBench(args[1:], stdout, stderr)
	case "key":
		return cmdWGKey(args[1:], stdout, stderr)
	case "run":
		return cmdWGRun(args[1:], stdout, stderr)
	case "status":
		return cmdWGStatus(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, wgUsage)
		return nil
	}
	fmt.Fprint(stderr, wgUsage)
	return fmt.Errorf("%w: unknown wg command %q", errUsage, args[0])
}

// sourceFlags select a key source.
type sourceFlags struct {
	keyFile                          *string
	p11Module, p11Token, p11Key, pin *string
	pinEnv                           *string
	tpmDev, tpmBlob, tpmAuth         *string
}

func addSourceFlags(fs interface {
	String(string, string, string) *string
}) sourceFlags {
	return sourceFlags{
		keyFile:   fs.String("key-file", "", "file key (base64, mode 0600)"),
		p11Module: fs.String("p11-module", "", "PKCS#11 module path (e.g. /usr/lib/softhsm/libsofthsm2.so)"),
		p11Token:  fs.String("p11-token", "", "PKCS#11 token label"),
		p11Key:    fs.String("p11-key", "wg-psk", "PKCS#11 key label (an HMAC or AES secret key)"),
		pin:       fs.String("p11-pin-file", "", "file (mode 0600) holding the user PIN"),
		pinEnv:    fs.String("p11-pin-env", "", "environment variable holding the user PIN (unset once read; it stays in /proc/PID/environ, so prefer -p11-pin-file)"),
		tpmDev:    fs.String("tpm", "", "TPM device (/dev/tpmrm0, unix:PATH or tcp:HOST:PORT)"),
		tpmBlob:   fs.String("tpm-blob", "", "TPM key blob file (from kexlab wg key -tpm-import)"),
		tpmAuth:   fs.String("tpm-auth-file", "", "file (mode 0600) holding the TPM key's authorization value, for a key imported with one (-tpm-import with this flag sets it)"),
	}
}

func (f sourceFlags) p11Config() p11.Config {
	return p11.Config{Module: *f.p11Module, TokenLabel: *f.p11Token, KeyLabel: *f.p11Key, PINFile: *f.pin, PINEnv: *f.pinEnv}
}

// selected counts the key sources the flags select.
func (f sourceFlags) selected() int {
	n := 0
	for _, set := range []bool{*f.keyFile != "", *f.p11Module != "", *f.tpmDev != ""} {
		if set {
			n++
		}
	}
	return n
}

// open opens every key source the flags select (file, PKCS#11, TPM, in
// that order); the caller closes those returned, also on error.
func (f sourceFlags) open() ([]keysource.Source, error) {
	if *f.tpmAuth != "" && *f.tpmDev == "" {
		return nil, fmt.Errorf("%w: -tpm-auth-file goes with -tpm and -tpm-blob", errUsage)
	}
	var out []keysource.Source
	add := func(s keysource.Source, err error) error {
		if err == nil {
			out = append(out, s)
		}
		return err
	}
	if *f.keyFile != "" {
		if err := add(keysource.OpenFile(*f.keyFile)); err != nil {
			return out, err
		}
	}
	if *f.p11Module != "" {
		if err := add(p11.Open(f.p11Config())); err != nil {
			return out, err
		}
	}
	if *f.tpmDev != "" {
		if *f.tpmBlob == "" {
			return out, fmt.Errorf("%w: -tpm needs -tpm-blob", errUsage)
		}
		if err := add(tpm.OpenFileWith(*f.tpmDev, *f.tpmBlob, tpm.Options{AuthFile: *f.tpmAuth})); err != nil {
			return out, err
		}
	}
	return out, nil
}
