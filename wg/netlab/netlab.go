// Package netlab is a network-namespace lab for WireGuard on Linux: two
// namespaces joined by a veth pair and, in each, a userspace WireGuard
// device (wireguard-go on a real TUN interface, serving the UAPI socket
// /var/run/wireguard/IFACE.sock as the wireguard-go command does, so that
// wgctrl and `wg` reach it), each device a process of its own. Processes
// placed in a namespace (`ip netns exec NS ...`) see only the lab's
// network: the underlay 192.168.241.0/24 on the veth pair and the tunnel
// 10.77.0.0/24 through WireGuard. Traffic is real UDP through the kernel's
// routing into the tunnel.
//
// A Lab needs Linux, root, /dev/net/tun and iproute2's ip (Available says
// what is missing). Every name it creates carries this process's id and a
// sequence number, so labs of several processes (and several labs of one
// process) coexist; Close stops the lab's processes and deletes its
// namespaces, which removes the veth pair and the TUN interfaces with them.
// Processes started by a lab are killed if the process that started them
// dies; only its namespaces outlive a process killed outright (`ip netns
// list` shows them as kn<pid><seq>a and b).
//
// # Helper processes
//
// The WireGuard devices, and any other helper, are the calling binary
// re-executed (Options.Exe, by default os.Executable()) with the
// environment variable HelperEnv naming the helper kind. The binary must
// call MaybeRunHelper before anything else in main (or, for a test binary,
// at the top of TestMain): it runs a built-in helper (HelperDevice,
// HelperEcho, HelperPing) and exits, and returns for any other kind so that
// the caller can dispatch kinds of its own:
//
//	func TestMain(m *testing.M) {
//		netlab.MaybeRunHelper()
//		switch os.Getenv(netlab.HelperEnv) {
//		case "daemon":
//			os.Exit(runDaemon())
//		}
//		os.Exit(m.Run())
//	}
//
// Helpers are started with the single argument "-test.run=^$", which keeps
// a test binary that lacks the dispatch from running its tests again; the
// kexlab binary never looks at it (MaybeRunHelper exits first).
package netlab

import (
	"fmt"
	"net"
	"os"
	"time"
)

// HelperEnv names the helper kind a re-executed binary runs.
const HelperEnv = "KEXLAB_NETLAB_HELPER"

// The built-in helper kinds and their parameters.
const (
	// HelperDevice is a userspace WireGuard device named by IfaceEnv
	// (RunDevice); SIGUSR1 makes it expire its peers' current keypairs,
	// forcing a handshake (Lab.ForceHandshake).
	HelperDevice = "device"
	// HelperEcho is a UDP echo server on AddrEnv (RunEcho).
	HelperEcho = "echo"
	// HelperPing sends to the echo server at AddrEnv until it answers
	// (RunPing).
	HelperPing = "ping"

	IfaceEnv = "KEXLAB_NETLAB_IFACE"
	AddrEnv  = "KEXLAB_NETLAB_ADDR"
)

// RequireEnv, set to 1 (make test as root does), makes Need fail a test
// where a lab cannot run instead of skipping it.
const RequireEnv = "KEXLAB_REQUIRE_NETNS"

// TB is the part of testing.TB that Need uses (netlab does not import
// package testing, which the kexlab binary links).
type TB interface {
	Helper()
	Skip(args ...any)
	Fatalf(format string, args ...any)
}

// Need skips t, with the reason, where a lab cannot run here (Available),
// or fails it when RequireEnv is 1.
func Need(t TB) {
	t.Helper()
	if why := Available(); why != "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s=1 but %s", RequireEnv, why)
		}
		t.Skip(why)
	}
}

// MaybeRunHelper runs the built-in helper that HelperEnv names and exits
// with its status. It returns when HelperEnv is unset or names another
// kind.
func MaybeRunHelper() {
	switch os.Getenv(HelperEnv) {
	case HelperDevice:
		os.Exit(RunDevice(os.Getenv(IfaceEnv)))
	case HelperEcho:
		os.Exit(RunEcho(os.Getenv(AddrEnv)))
	case HelperPing:
		os.Exit(RunPing(os.Getenv(AddrEnv)))
	}
}

// RunEcho answers every UDP datagram on addr with the same bytes, until
// the socket fails (the process is stopped by a signal).
func RunEcho(addr string) int {
	c, err := net.ListenPacket("udp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		return 1
	}
	buf := make([]byte, 1500)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return 1
		}
		c.WriteTo(buf[:n], from)
	}
}

// RunPing sends datagrams to the echo server at addr until one comes back
// (the first packets wait for WireGuard's handshake): 0 if one did within
// 20 tries of 250 ms, 1 otherwise.
func RunPing(addr string) int {
	c, err := net.Dial("udp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ping:", err)
		return 1
	}
	buf := make([]byte, 64)
	for range 20 {
		c.Write([]byte("kexlab ping"))
		c.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
		if n, err := c.Read(buf); err == nil && string(buf[:n]) == "kexlab ping" {
			return 0
		}
	}
	return 1
}
