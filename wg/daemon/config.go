// Package daemon is `kexlab wg run`: the PSK rotator as a service beside an
// existing WireGuard interface (kernel, or userspace such as wireguard-go,
// reached through wgctrl). It reads a JSON configuration, opens the key
// source, runs one rotator (package wg/rotator) per configured peer and,
// in fresh mode, one UDP socket inside the tunnel shared by them.
//
// Configuration (a regular file of at most 1 MiB, MaxConfigFile; unknown
// fields are an error):
//
//	{
//	  "interface":   "wg0",                  // required
//	  "mode":        "hardware-ratchet",     // timestamp, hash-ratchet, hardware-ratchet, fresh
//	  "state_dir":   "/var/lib/kexlab-wg",   // required; one state file per peer
//	  "public_key":  "base64…",              // optional: read from the interface
//	  "fresh_listen": "10.0.0.1:51821",      // fresh mode: this side's tunnel address and port
//	  "peers": [
//	    "base64…",                           // a peer's public key, or
//	    {"public_key": "base64…", "fresh_peer": "10.0.0.2:51821"}
//	  ],
//	  "key_file": "/etc/kexlab-wg/psk.key",  // one key source: key_file,
//	  "pkcs11": {"module": "…", "token_label": "…", "key_label": "…", "pin_file": "…"},
//	  "tpm": {"device": "/dev/tpmrm0", "blob": "…", "auth_file": "…"},
//	  "max_failures": 3,                     // optional tuning
//	  "poll_interval": "1s", "retry_interval": "1s",
//	  "stale_after": "180s", "fail_window": "15s",
//	  "source_timeout": "5m",                // exit non-zero after a key source
//	                                         // unusable this long
//	  "lock_dir": "/run/kexlab-wg"           // the per-interface lock
//	}
//
// Before it starts, Run refuses (ErrPreflight, naming the path) what would
// fail later: a state_dir it cannot write, that is not owned by the
// daemon's user or that group or others can write (a missing one is
// created with mode 0700), a configuration file or PKCS#11 module that
// group or others can write, and a second daemon on the same interface or
// state_dir (ErrLocked, naming the first one's pid). A state file in
// another mode than the configured one is refused
// (rotator.ModeMismatchError) unless Options.ResetState restarts the
// chain.
//
// In fresh mode every peer needs fresh_peer, the address its own daemon's
// fresh_listen has inside the tunnel (the same port on both sides is
// simplest; the firewall must let that UDP port through on the WireGuard
// interface).
package daemon

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/wg"
	"github.com/kexlab/kexlab/wg/keysource/p11"
)

// ErrConfig: the configuration is malformed or incomplete.
var ErrConfig = errors.New("wg daemon: bad configuration")

// Config is the parsed configuration.
type Config struct {
	Interface   string     `json:"interface"`
	Mode        string     `json:"mode"`
	StateDir    string     `json:"state_dir"`
	PublicKey   string     `json:"public_key,omitempty"`
	FreshListen string     `json:"fresh_listen,omitempty"`
	Peers       []Peer     `json:"peers"`
	KeyFile     string     `json:"key_file,omitempty"`
	P11         *P11Config `json:"pkcs11,omitempty"`
	TPM         *TPMConfig `json:"tpm,omitempty"`
	MaxFailures int        `json:"max_failures,omitempty"`

	// LockDir holds the interface lock (default DefaultLockDir).
	LockDir string `json:"lock_dir,omitempty"`
	// SourceTimeout: a key source that stays unusable this long makes Run
	// return ErrSourceUnusable (default DefaultSourceTimeout).
	SourceTimeout Duration `json:"source_timeout,omitzero"`

	PollInterval  Duration `json:"poll_interval,omitzero"`
	RetryInterval Duration `json:"retry_interval,omitzero"`
	StaleAfter    Duration `json:"stale_after,omitzero"`
	FailWindow    Duration `json:"fail_window,omitzero"`

	// ResetState discards state files (kexlab wg run -reset-state; see
	// rotator.Config.ResetState). Not read from the file.
	ResetState bool `json:"-"`

	// Parsed forms, set by Parse (path by Load).
	path  string
	mode  wg.Mode
	self  [32]byte // zero: read from the interface
	fresh netip.AddrPort
}

// P11Config selects a PKCS#11 key source (see p11.Config). The PIN is
// never in the configuration: pin_file or pin_env names where it is.
type P11Config struct {
	Module     string `json:"module"`
	TokenLabel string `json:"token_label"`
	KeyLabel   string `json:"key_label"`
	PINFile    string `json:"pin_file,omitempty"`
	PINEnv     string `json:"pin_env,omitempty"`
}

func (c *P11Config) p11() p11.Config {
	return p11.Config{Module: c.Module, TokenLabel: c.TokenLabel, KeyLabel: c.KeyLabel, PINFile: c.PINFile, PINEnv: c.PINEnv}
}

// TPMConfig selects a TPM key source. AuthFile names the file holding the
// key's authorization value, for a key imported with one (kexlab wg key
// -tpm-import -tpm-auth-file); read like the PKCS#11 PIN file.
type TPMConfig struct {
	Device   string `json:"device"`
	Blob     string `json:"blob"`
	AuthFile string `json:"auth_file,omitempty"`
}

// Peer is one peer whose PSK is rotated.
type Peer struct {
	PublicKey string `json:"public_key"`
	FreshPeer string `json:"fresh_peer,omitempty"`

	pub   [32]byte
	fresh netip.AddrPort
}

// UnmarshalJSON accepts a public key string or an object.
func (p *Peer) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &p.PublicKey)
	}
	type plain Peer
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode((*plain)(p))
}

// Duration is a time.Duration written as a Go duration string ("15s").
type Duration time.Duration

// UnmarshalJSON parses a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("duration %q: want a positive Go duration such as \"15s\"", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// MaxConfigFile bounds a configuration file: 1 MiB, far above any real
// configuration (a peer is about 100 bytes).
const MaxConfigFile = 1 << 20

// Load reads and parses the configuration file at path: a regular file of
// at most MaxConfigFile bytes (fileio.ReadFile; its errors are returned as
// they are). Errors of Parse wrap ErrConfig and name the file.
func Load(path string) (*Config, error) {
	b, err := fileio.ReadFile(path, MaxConfigFile)
	if err != nil {
		return nil, err
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.path = path
	return c, nil
}

// Parse parses and checks a configuration. Every error wraps ErrConfig.
func Parse(b []byte) (*Config, error) {
	if len(b) > MaxConfigFile {
		return nil, fmt.Errorf("%w: larger than %s", ErrConfig, fileio.FormatSize(MaxConfigFile))
	}
	var c Config
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrConfig)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return &c, nil
}

func (c *Config) check() error {
	if c.Interface == "" || c.StateDir == "" || len(c.Peers) == 0 {
		return errors.New("interface, state_dir and peers are required")
	}
	m, err := wg.ParseMode(c.Mode)
	if err != nil {
		return err
	}
	c.mode = m
	if c.PublicKey != "" {
		if c.self, err = decodeKey(c.PublicKey); err != nil {
			return err
		}
	}
	sources := 0
	for _, set := range []bool{c.KeyFile != "", c.P11 != nil, c.TPM != nil} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return errors.New("exactly one of key_file, pkcs11, tpm is required")
	}
	if m == wg.Fresh {
		if c.fresh, err = netip.ParseAddrPort(c.FreshListen); err != nil {
			return fmt.Errorf("fresh mode: fresh_listen: %v", err)
		}
	}
	seen := make(map[[32]byte]bool)
	for i := range c.Peers {
		p := &c.Peers[i]
		if p.pub, err = decodeKey(p.PublicKey); err != nil {
			return fmt.Errorf("peer %d: %v", i, err)
		}
		if seen[p.pub] || p.pub == c.self {
			return fmt.Errorf("peer %d: public key listed twice", i)
		}
		seen[p.pub] = true
		if m == wg.Fresh {
			if p.fresh, err = netip.ParseAddrPort(p.FreshPeer); err != nil {
				return fmt.Errorf("peer %d: fresh mode: fresh_peer: %v", i, err)
			}
		}
	}
	return nil
}

func decodeKey(s string) ([32]byte, error) {
	var k [32]byte
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != 32 {
		return k, fmt.Errorf("bad WireGuard public key %q (want 32 bytes in base64)", s)
	}
	copy(k[:], b)
	return k, nil
}
