package peer

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a driver when KEXLAB_PEER_HELPER names a
// behaviour: "ok" speaks the protocol (scheme 1 fails with an error
// line), "garbage" answers a sample with a malformed line, "nohello"
// exits at once.
func TestMain(m *testing.M) {
	switch os.Getenv("KEXLAB_PEER_HELPER") {
	case "":
		os.Exit(m.Run())
	case "nohello":
		os.Exit(0)
	case "garbage":
		fmt.Println(`{"protocol":"kexlab-peer/1","label":"g","schemes":[{"name":"x","kexlab":"srp","op":"full"}]}`)
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Println("0 twelve 3 4")
		}
		os.Exit(0)
	case "ok":
		fmt.Println(`{"protocol":"kexlab-peer/1","label":"fake","source":"test driver","schemes":[` +
			`{"name":"peer fake srp","suite":"s","spec":"p","augmented":true,"key_confirmation":true,"kexlab":"srp","op":"full","differs":"nothing"},` +
			`{"name":"peer fake broken","kexlab":"","op":""}]}`)
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			f := strings.Fields(in.Text())
			switch {
			case len(f) == 0 || f[0] == "quit":
				os.Exit(0)
			case f[1] == "1":
				fmt.Println("error 1 the library said no")
			default:
				fmt.Printf("%s 1500 1200 848\n", f[1])
			}
		}
		os.Exit(0)
	}
}

func helper(t *testing.T, behaviour string) []string {
	t.Setenv("KEXLAB_PEER_HELPER", behaviour)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}
}

func TestProcess(t *testing.T) {
	p, err := Start(helper(t, "ok"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Hello.Label != "fake" || len(p.Hello.Schemes) != 2 {
		t.Fatalf("hello %+v", p.Hello)
	}
	peers := p.Peers()
	si := peers[0].Info()
	if si.Name != "peer fake srp" || si.Peer == nil || si.Peer.Scheme != "srp" || si.Peer.Op != "full" ||
		si.Peer.Differs != "nothing" || !strings.Contains(si.Spec, "driver: test driver") {
		t.Errorf("info %+v %+v", si, si.Peer)
	}
	for range 3 {
		s, err := peers[0].Sample()
		if err != nil || s.WallNs != 1500 || s.CPUNs != 1200 || s.WireBytes != 848 {
			t.Fatalf("sample %+v, %v", s, err)
		}
	}
	// A driver's error line fails that sample; the driver lives on.
	if _, err := peers[1].Sample(); err == nil || !strings.Contains(err.Error(), "the library said no") {
		t.Errorf("error reply: %v", err)
	}
	if _, err := peers[0].Sample(); err != nil {
		t.Errorf("after an error reply: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func TestProcessProtocolErrors(t *testing.T) {
	if _, err := Start(helper(t, "nohello"), nil); !errors.Is(err, ErrProtocol) {
		t.Errorf("no hello: %v", err)
	}
	p, err := Start(helper(t, "garbage"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := p.Peers()[0]
	if _, err := s.Sample(); !errors.Is(err, ErrProtocol) {
		t.Errorf("malformed reply: %v", err)
	}
	// The process is dead to kexlab after a protocol error.
	if _, err := s.Sample(); !errors.Is(err, ErrProtocol) {
		t.Errorf("after a protocol error: %v", err)
	}
	if _, err := Start([]string{"/nonexistent/driver"}, nil); err == nil {
		t.Error("a missing driver started")
	}
}

func TestProcessTimeout(t *testing.T) {
	old := Timeout
	Timeout = 200 * time.Millisecond
	defer func() { Timeout = old }()
	start := time.Now()
	if _, err := Start([]string{"sleep", "5"}, nil); !errors.Is(err, ErrProtocol) || time.Since(start) > 3*time.Second {
		t.Errorf("silent driver: %v after %v", err, time.Since(start))
	}
}

func TestParseReply(t *testing.T) {
	for line, want := range map[string]Reply{
		"2 1500 0 66":         {Index: 2, WallNs: 1500, Bytes: 66},
		"error 1 out of luck": {Index: 1, Err: "out of luck"},
		"error 0":             {Index: 0, Err: "failed (no message)"},
	} {
		if got, err := ParseReply(line); err != nil || got != want {
			t.Errorf("%q: %+v, %v", line, got, err)
		}
	}
	for _, bad := range []string{"", "1 2 3", "1 0 0 0", "-1 5 5 5", "1 5 5 5 5", "a b c d", "error x y", "1 5 -1 5", "1 99999999999999999999 1 1"} {
		if _, err := ParseReply(bad); !errors.Is(err, ErrProtocol) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseHello(t *testing.T) {
	for _, bad := range []string{`{}`, `not json`, `{"protocol":"kexlab-peer/2","schemes":[{"name":"a"}]}`,
		`{"protocol":"kexlab-peer/1","schemes":[]}`, `{"protocol":"kexlab-peer/1","schemes":[{"name":""}]}`,
		`{"protocol":"kexlab-peer/1","schemes":[{"name":"a"},{"name":"a"}]}`,
		`{"protocol":"kexlab-peer/1","schemes":[{"name":"a","kexlab":"srp","op":"register"}]}`} {
		if _, err := ParseHello([]byte(bad)); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func FuzzParseReply(f *testing.F) {
	f.Add("2 1500 1200 66")
	f.Add("error 1 no")
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseReply(line)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if r.Index < 0 || (r.Err == "" && (r.WallNs <= 0 || r.CPUNs < 0 || r.Bytes < 0)) {
			t.Fatalf("accepted %q as %+v", line, r)
		}
	})
}

func FuzzParseHello(f *testing.F) {
	f.Add([]byte(`{"protocol":"kexlab-peer/1","schemes":[{"name":"a","kexlab":"srp","op":"full"}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		h, err := ParseHello(line)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if h.Protocol != Protocol || len(h.Schemes) == 0 {
			t.Fatalf("accepted %+v", h)
		}
	})
}
