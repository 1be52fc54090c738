package main

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11"
	"github.com/kexlab/kexlab/wg/keysource/tpm"
	"github.com/kexlab/kexlab/wg/rotator"
)

const wgUsage = `usage: kexlab wg <command> [flags]

commands:
  demo   two in-process WireGuard peers (wireguard-go on netstack) with a file
         key: prints each PSK rotation and an echo through the tunnel
  bench  latency of one Derive per key source and of one PSK update per mode
  key    create a key file, a PKCS#11 key (generate/export/import) or a TPM blob
  run    the rotator daemon: kexlab wg run -config FILE
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
	tpmDev, tpmBlob                  *string
}

func addSourceFlags(fs interface {
	String(string, string, string) *string
}) sourceFlags {
	return sourceFlags{
		keyFile:   fs.String("key-file", "", "file key (base64, mode 0600)"),
		p11Module: fs.String("p11-module", "", "PKCS#11 module path (e.g. /usr/lib/softhsm/libsofthsm2.so)"),
		p11Token:  fs.String("p11-token", "", "PKCS#11 token label"),
		p11Key:    fs.String("p11-key", "wg-psk", "PKCS#11 HMAC key label"),
		pin:       fs.String("p11-pin-file", "", "file (mode 0600) holding the user PIN"),
		pinEnv:    fs.String("p11-pin-env", "", "environment variable holding the user PIN"),
		tpmDev:    fs.String("tpm", "", "TPM device (/dev/tpmrm0, unix:PATH or tcp:HOST:PORT)"),
		tpmBlob:   fs.String("tpm-blob", "", "TPM key blob file (from kexlab wg key -tpm)"),
	}
}

func (f sourceFlags) p11Config() p11.Config {
	return p11.Config{Module: *f.p11Module, TokenLabel: *f.p11Token, KeyLabel: *f.p11Key, PINFile: *f.pin, PINEnv: *f.pinEnv}
}

// --- demo ---

func cmdWGDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg demo", stderr)
	n := fs.Int("n", 5, "number of rotations")
	modeName := fs.String("mode", "hardware-ratchet", "mode: timestamp, hash-ratchet, hardware-ratchet")
	if err := parse(fs, args); err != nil {
		return err
	}
	mode, err := wg.ParseMode(*modeName)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	dir, err := os.MkdirTemp("", "kexlab-wg-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	keyPath := filepath.Join(dir, "psk.key")
	if err := keysource.CreateKeyFile(keyPath, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "key file %s (both peers share it)\n", keyPath)
	var devs [2]*rotator.NetstackDevice
	var pubs [2][32]byte
	for i := range devs {
		priv, err := ecdh.X25519().GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		copy(pubs[i][:], priv.PublicKey().Bytes())
		addr := netip.AddrFrom4([4]byte{10, 7, 0, byte(i + 1)})
		if devs[i], err = rotator.NewNetstackDevice([32]byte(priv.Bytes()), addr, 0); err != nil {
			return err
		}
		defer devs[i].Close()
	}
	lo := netip.MustParseAddr("127.0.0.1")
	for i, j := range []int{1, 0} {
		if err := devs[i].AddPeer(pubs[j], netip.AddrPortFrom(lo, uint16(devs[j].Port)), devs[j].Addr); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "peer A %s udp 127.0.0.1:%d, peer B %s udp 127.0.0.1:%d, mode %v\n",
		devs[0].Addr, devs[0].Port, devs[1].Addr, devs[1].Port, mode)
	stop, err := demoEcho(devs[1])
	if err != nil {
		return err
	}
	defer stop()
	var rots [2]*rotator.Rotator
	for i, j := range []int{1, 0} {
		src, err := keysource.OpenFile(keyPath)
		if err != nil {
			return err
		}
		defer src.Close()
		name := string(rune('A' + i))
		rots[i], err = rotator.New(rotator.Config{
			Self: pubs[i], Peer: pubs[j], Source: src, Device: devs[i].GoDevice, Mode: mode,
			StatePath: filepath.Join(dir, name+".state"),
			Events:    func(e rotator.Event) { fmt.Fprintf(stdout, "  %s: %v\n", name, e) },
		})
		if err != nil {
			return err
		}
		defer rots[i].Close()
	}
	for k := 0; k <= *n; k++ {
		from := k % 2
		time.Sleep(20 * time.Millisecond) // initiations need distinct TAI64N timestamps
		devs[from].ForceHandshake(pubs[1-from])
		start := time.Now()
		if err := demoPing(devs[0], devs[1].Addr); err != nil {
			return fmt.Errorf("echo after handshake %d: %w", k, err)
		}
		fmt.Fprintf(stdout, "handshake %d (initiated by %c), echo through the tunnel in %v\n",
			k, 'A'+from, time.Since(start).Round(time.Microsecond))
		for i := range rots {
			if err := pollUntilHandshake(rots[i], devs[i], pubs[1-i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// pollUntilHandshake polls r until it has handled the device's latest
// handshake (the responder sees it when the first data packet arrives).
func pollUntilHandshake(r *rotator.Rotator, d *rotator.NetstackDevice, peer [32]byte) error {
	want := r.State()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		if err := r.Poll(); err != nil {
			return err
		}
		if r.State() != want {
			return nil
		}
		if want.Mode == wg.Timestamp {
			return nil
		}
	}
	return fmt.Errorf("no handshake seen")
}

func demoEcho(d *rotator.NetstackDevice) (func(), error) {
	l, err := d.Net.ListenUDPAddrPort(netip.AddrPortFrom(d.Addr, 7))
	if err != nil {
		return nil, err
	}
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := l.ReadFrom(buf)
			if err != nil {
				return
			}
			l.WriteTo(buf[:n], from)
		}
	}()
	return func() { l.Close() }, nil
}

func demoPing(d *rotator.NetstackDevice, to netip.Addr) error {
	c, err := d.Net.DialUDPAddrPort(netip.AddrPort{}, netip.AddrPortFrom(to, 7))
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	msg := []byte("kexlab wg demo ping")
	if _, err := c.Write(msg); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != string(msg) {
		return fmt.Errorf("echo mismatch")
	}
	return nil
}

// --- bench ---

type wgBenchRow struct {
	What    string        `json:"what"`
	Summary stats.Summary `json:"ns"`
}

func cmdWGBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg bench", stderr)
	n := fs.Int("n", 200, "samples per measurement")
	jsonPath := fs.String("json", "", "write the results as JSON to this file")
	sf := addSourceFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 2 {
		return fmt.Errorf("%w: -n must be at least 2", errUsage)
	}
	var key [32]byte
	rand.Read(key[:])
	sources := []keysource.Source{keysource.NewFile(key, "file")}
	if *sf.keyFile != "" {
		s, err := keysource.OpenFile(*sf.keyFile)
		if err != nil {
			return err
		}
		sources = append(sources, s)
	}
	if *sf.p11Module != "" {
		s, err := p11.Open(sf.p11Config())
		if err != nil {
			return err
		}
		sources = append(sources, s)
	}
	if *sf.tpmDev != "" {
		s, err := tpm.OpenFile(*sf.tpmDev, *sf.tpmBlob)
		if err != nil {
			return err
		}
		sources = append(sources, s)
	}
	defer func() {
		for _, s := range sources {
			s.Close()
		}
	}()
	var rows []wgBenchRow
	add := func(what string, f func() error) error {
		xs := make([]float64, *n)
		for i := range xs {
			t := time.Now()
			if err := f(); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			xs[i] = float64(time.Since(t).Nanoseconds())
		}
		s, err := stats.Summarize(xs)
		if err != nil {
			return err
		}
		rows = append(rows, wgBenchRow{What: what, Summary: s})
		fmt.Fprintf(stdout, "%-34s n=%d median=%.0f ns IQR=%.0f ns\n", what, s.N, s.Median, s.IQR)
		return nil
	}
	input := make([]byte, 128)
	for _, src := range sources {
		if err := add("derive "+src.Name(), func() error {
			out, err := src.Derive(input)
			clear(out[:])
			return err
		}); err != nil {
			return err
		}
	}
	// One PSK update per mode: compute the next PSK and apply it to an
	// in-process wireguard-go device (IpcSet), as the rotator does.
	var self, peer [32]byte
	rand.Read(self[:])
	rand.Read(peer[:])
	d, err := rotator.NewNetstackDevice(self, netip.MustParseAddr("10.7.0.1"), 0)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.AddPeer(peer, netip.MustParseAddrPort("127.0.0.1:9"), netip.MustParseAddr("10.7.0.2")); err != nil {
		return err
	}
	for _, src := range sources {
		for _, m := range []wg.Mode{wg.Timestamp, wg.HashRatchet, wg.HardwareRatchet} {
			upd, err := rotator.BenchUpdate(src, m, self, peer, d.GoDevice)
			if err != nil {
				return err
			}
			if err := add(fmt.Sprintf("update %v %s", m, src.Name()), upd); err != nil {
				return err
			}
		}
	}
	if *jsonPath != "" {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*jsonPath, append(b, '\n'), 0o644)
	}
	return nil
}

// --- key ---

func cmdWGKey(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg key", stderr)
	out := fs.String("out", "", "write a new random key to this file (mode 0600)")
	generate := fs.Bool("p11-generate", false, "generate the HMAC key -p11-key in the token (extractable only wrapped)")
	export := fs.String("p11-export", "", "export -p11-key wrapped under the KEK -p11-kek to this file")
	imp := fs.String("p11-import", "", "import a wrapped key file as -p11-key, unwrapping under -p11-kek")
	kek := fs.String("p11-kek", "wg-kek", "label of the shared key-encryption key")
	tpmImport := fs.String("tpm-import", "", "import this key file into the TPM (-tpm) and write the blob to -tpm-blob")
	sf := addSourceFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *out != "":
		if err := keysource.CreateKeyFile(*out, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
		return nil
	case *generate || *export != "" || *imp != "":
		t, err := p11.OpenToken(sf.p11Config())
		if err != nil {
			return err
		}
		defer t.Close()
		switch {
		case *generate:
			if err := t.GenerateKey(*sf.p11Key); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "generated %q in token %q\n", *sf.p11Key, *sf.p11Token)
		case *export != "":
			w, err := t.Export(*sf.p11Key, *kek)
			if err != nil {
				return err
			}
			b, err := w.MarshalText()
			if err != nil {
				return err
			}
			if err := os.WriteFile(*export, append(b, '\n'), 0o600); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote the wrapped key to %s\n", *export)
		default:
			b, err := os.ReadFile(*imp)
			if err != nil {
				return err
			}
			var w p11.Wrapped
			if err := w.UnmarshalText(trimNL(b)); err != nil {
				return err
			}
			if err := t.Import(*sf.p11Key, *kek, w); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "imported %q into token %q\n", *sf.p11Key, *sf.p11Token)
		}
		return nil
	case *tpmImport != "":
		if *sf.tpmDev == "" || *sf.tpmBlob == "" {
			return fmt.Errorf("%w: -tpm-import needs -tpm and -tpm-blob", errUsage)
		}
		raw, err := keysource.ReadSecretFile(*tpmImport)
		if err != nil {
			return err
		}
		defer clear(raw)
		key := make([]byte, 33)
		defer clear(key)
		n, err := base64.StdEncoding.Strict().Decode(key, trimNL(raw))
		if err != nil || n != keysource.KeySize {
			return fmt.Errorf("%w: %s", keysource.ErrKeyFile, *tpmImport)
		}
		t, err := tpm.OpenTransport(*sf.tpmDev)
		if err != nil {
			return err
		}
		defer t.Close()
		blob, err := tpm.ImportKey(t, key[:n])
		if err != nil {
			return err
		}
		if err := os.WriteFile(*sf.tpmBlob, blob, 0o600); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the TPM key blob to %s\n", *sf.tpmBlob)
		return nil
	}
	return fmt.Errorf("%w: give -out, -p11-generate, -p11-export, -p11-import or -tpm-import", errUsage)
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// --- run ---

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
