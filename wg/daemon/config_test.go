package daemon

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/wg"
)

const (
	keyA = "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE=" // 32 × 'a'
	keyB = "YmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmI=" // 32 × 'b'
)

func TestParse(t *testing.T) {
	c, err := Parse([]byte(`{"interface": "wg0", "mode": "hardware-ratchet", "state_dir": "/s",
		"peers": ["` + keyA + `"], "key_file": "/k", "poll_interval": "250ms"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.mode != wg.HardwareRatchet || c.Peers[0].pub != [32]byte([]byte(strings.Repeat("a", 32))) ||
		c.self != ([32]byte{}) || time.Duration(c.PollInterval) != 250*time.Millisecond {
		t.Fatalf("parsed %+v", c)
	}
	c, err = Parse([]byte(`{"interface": "wg0", "mode": "fresh", "state_dir": "/s", "public_key": "` + keyB + `",
		"fresh_listen": "10.0.0.1:51821", "peers": [{"public_key": "` + keyA + `", "fresh_peer": "10.0.0.2:51821"}],
		"pkcs11": {"module": "/m.so", "token_label": "t", "key_label": "k", "pin_env": "PIN"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.mode != wg.Fresh || c.fresh.Port() != 51821 || c.Peers[0].fresh.String() != "10.0.0.2:51821" ||
		c.P11.p11().PINEnv != "PIN" || c.self != [32]byte([]byte(strings.Repeat("b", 32))) {
		t.Fatalf("parsed %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	base := `"interface": "wg0", "mode": "timestamp", "state_dir": "/s", "key_file": "/k"`
	for name, cfg := range map[string]string{
		"not json":           `interface=wg0`,
		"unknown field":      `{` + base + `, "peers": ["` + keyA + `"], "pin": "1234"}`,
		"unknown peer key":   `{` + base + `, "peers": [{"public_key": "` + keyA + `", "psk": "x"}]}`,
		"no peers":           `{` + base + `, "peers": []}`,
		"no interface":       `{"mode": "timestamp", "state_dir": "/s", "key_file": "/k", "peers": ["` + keyA + `"]}`,
		"bad mode":           `{"interface": "wg0", "mode": "v4", "state_dir": "/s", "key_file": "/k", "peers": ["` + keyA + `"]}`,
		"two sources":        `{` + base + `, "tpm": {"device": "/dev/tpmrm0", "blob": "/b"}, "peers": ["` + keyA + `"]}`,
		"no source":          `{"interface": "wg0", "mode": "timestamp", "state_dir": "/s", "peers": ["` + keyA + `"]}`,
		"short key":          `{` + base + `, "peers": ["YWFh"]}`,
		"duplicate peer":     `{` + base + `, "peers": ["` + keyA + `", "` + keyA + `"]}`,
		"self as peer":       `{` + base + `, "public_key": "` + keyA + `", "peers": ["` + keyA + `"]}`,
		"bad duration":       `{` + base + `, "peers": ["` + keyA + `"], "fail_window": "-3s"}`,
		"trailing data":      `{` + base + `, "peers": ["` + keyA + `"]} {}`,
		"fresh no listen":    `{"interface": "wg0", "mode": "fresh", "state_dir": "/s", "key_file": "/k", "peers": [{"public_key": "` + keyA + `", "fresh_peer": "10.0.0.2:1"}]}`,
		"fresh no peer addr": `{"interface": "wg0", "mode": "fresh", "state_dir": "/s", "key_file": "/k", "fresh_listen": "10.0.0.1:1", "peers": ["` + keyA + `"]}`,
	} {
		if _, err := Parse([]byte(cfg)); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

// TestLoad: the file is read through fileio (regular files, at most
// MaxConfigFile bytes) and a parse error names it.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "wg.json")
	if err := os.WriteFile(good, []byte(`{"interface": "wg0", "mode": "timestamp", "state_dir": "/s", "key_file": "/k", "peers": ["`+keyA+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(good); err != nil || c.Interface != "wg0" {
		t.Fatalf("Load: %v %+v", err, c)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"interface": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); !errors.Is(err, ErrConfig) || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("bad config: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxConfigFile+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); !errors.Is(err, fileio.ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB limit") {
		t.Errorf("large config: %v", err)
	}
	if _, err := Load(dir); !errors.Is(err, fileio.ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"interface": "wg0", "mode": "fresh", "state_dir": "/s", "key_file": "/k", "fresh_listen": "10.0.0.1:1",
		"peers": [{"public_key": "` + keyA + `", "fresh_peer": "10.0.0.2:1"}, "` + keyB + `"], "retry_interval": "1s"}`))
	f.Add([]byte(`{"interface": "wg0", "mode": "timestamp", "state_dir": "/s", "tpm": {"device": "d", "blob": "b"}, "peers": ["` + keyA + `"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error without ErrConfig: %v", err)
			}
			return
		}
		if c.Interface == "" || c.StateDir == "" || len(c.Peers) == 0 || c.mode == 0 {
			t.Fatalf("accepted an incomplete configuration: %+v", c)
		}
		if c.mode == wg.Fresh && !c.fresh.IsValid() {
			t.Fatalf("fresh mode without an address: %+v", c)
		}
	})
}
