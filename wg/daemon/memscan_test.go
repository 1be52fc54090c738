//go:build linux

package daemon

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	"github.com/kexlab/kexlab/wg/netlab"
)

// scanMemory counts the occurrences of each needle in the readable
// mappings of process pid (/proc/PID/maps and /proc/PID/mem; root).
func scanMemory(pid int, needles map[string][]byte) (map[string]int, int64, error) {
	maps, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, 0, err
	}
	defer maps.Close()
	mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return nil, 0, err
	}
	defer mem.Close()
	counts := make(map[string]int)
	longest := 0
	for _, n := range needles {
		longest = max(longest, len(n))
	}
	var scanned int64
	buf := make([]byte, 1<<20)
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[1][0] != 'r' || (len(f) >= 6 && (f[5] == "[vvar]" || f[5] == "[vsyscall]")) {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil {
			continue
		}
		// Overlapping chunks, so a needle across a chunk boundary counts
		// once: each chunk counts matches that start before its last
		// len-1 bytes... except the region's last chunk.
		for off := start; off < end; {
			n := min(uint64(len(buf)), end-off)
			got, err := mem.ReadAt(buf[:n], int64(off))
			if err != nil && err != io.EOF && got == 0 {
				break // unreadable (e.g. a guard page)
			}
			chunk := buf[:got]
			scanned += int64(got)
			limit := len(chunk) // matches must start before limit
			last := off+uint64(got) >= end
			if !last {
				limit = max(0, len(chunk)-(longest-1))
			}
			for name, nd := range needles {
				for i := 0; ; {
					j := bytes.Index(chunk[i:], nd)
					if j < 0 || i+j >= limit {
						break
					}
					counts[name]++
					i += j + 1
				}
			}
			if last {
				break
			}
			off += uint64(limit)
		}
	}
	return counts, scanned, sc.Err()
}

func keyNeedles(prefix string, k []byte) map[string][]byte {
	return map[string][]byte{
		prefix + " raw":    k,
		prefix + " hex":    []byte(hex.EncodeToString(k)),
		prefix + " base64": []byte(base64.StdEncoding.EncodeToString(k)),
	}
}

// TestDaemonMemory rotates the PSK for a minute between two real
// daemons (a handshake forced about every second), then scans the memory
// of daemon a for the current PSK, the PSKs before it and the interface's
// private key, raw, in hex and in base64.
//
// What the design keeps: one raw copy of the current PSK, the Rotator's
// (it re-applies it when the interface loses it, and the hash ratchet
// steps from it). Nothing else: no earlier PSK, nothing of the private
// key (the public key is derived once from a cleared dump), no hex or
// base64 form of any key. Before the fixes of issue 20 a scan after 28 s
// found 47 raw and 78 hex copies of the current PSK; what removed them:
// the UAPI client of package wgdev (its buffers cleared, no strings),
// PSK.Hash and the key file's HMAC output through cleared buffers, and
// package stackwipe for the dead frames and old stacks of the rotator's
// goroutine.
func TestDaemonMemory(t *testing.T) {
	netlab.Need(t)
	l := setupLab(t, "hardware-ratchet", nil)
	a, b := l.A, l.B
	l.waitFor("a PSK on both interfaces", 10*time.Second, func() bool {
		pa := l.PSK(a)
		return pa != (wgtypes.Key{}) && pa == l.PSK(b)
	})
	seen := []wgtypes.Key{l.PSK(a)}
	end := time.Now().Add(time.Minute)
	for time.Now().Before(end) {
		if err := l.ForceHandshake(a); err != nil {
			t.Fatal(err)
		}
		l.ping()
		prev := seen[len(seen)-1]
		for stop := time.Now().Add(3 * time.Second); time.Now().Before(stop); time.Sleep(20 * time.Millisecond) {
			if pa := l.PSK(a); pa != prev && pa == l.PSK(b) {
				seen = append(seen, pa)
				break
			}
		}
		time.Sleep(time.Second)
	}
	if len(seen) < 20 {
		t.Fatalf("only %d rotations in a minute\n%s", len(seen)-1, l.Logs())
	}
	time.Sleep(500 * time.Millisecond) // a few more polls of the current PSK
	cur := l.PSK(a)
	if cur != seen[len(seen)-1] {
		t.Fatal("the PSK changed after the rotations")
	}
	needles := keyNeedles("current PSK", cur[:])
	for i, k := range seen[:len(seen)-1] {
		for name, n := range keyNeedles(fmt.Sprintf("PSK %d", i), k[:]) {
			needles[name] = n
		}
	}
	for name, n := range keyNeedles("private key", a.Private[:]) {
		needles[name] = n
	}
	pid := l.proc("daemon-a").Pid()
	counts, scanned, err := scanMemory(pid, needles)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rotations; scanned %d MiB of daemon a (pid %d); copies found: %v", len(seen)-1, scanned>>20, pid, counts)
	if scanned < 1<<20 {
		t.Fatalf("scanned only %d bytes", scanned)
	}
	for name, n := range counts {
		limit := 0
		if name == "current PSK raw" {
			limit = 1
		}
		if n > limit {
			t.Errorf("%d copies of the %s in the daemon's memory (at most %d allowed)", n, name, limit)
		}
	}
	// The scan finds what is there: the device's own process holds the
	// current PSK (it uses it), in one form or another.
	dcounts, _, err := scanMemory(l.proc(a.Iface).Pid(), keyNeedles("current PSK", cur[:]))
	if err != nil {
		t.Fatal(err)
	}
	if dcounts["current PSK raw"] == 0 {
		t.Fatalf("the scan did not find the PSK in the WireGuard device's process either: %v", dcounts)
	}
}
