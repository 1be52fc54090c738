// Package peer runs the driver of an independent implementation (peers/:
// RustCrypto's crates, PyPI packages, a Go module) as a child process and
// takes its samples one at a time, so that kexlab compare interleaves them
// with kexlab's own schemes in one seeded order, on the same machine at
// the same moments.
//
// The driver protocol, kexlab-peer/1, is line-based on the driver's
// standard input and output:
//
//   - the driver starts by writing one line, a JSON object
//     {"protocol": "kexlab-peer/1", "label": …, "source": …, "schemes": [
//     {"name", "suite", "spec", "augmented", "key_confirmation",
//     "kexlab", "op", "differs"}, …]} — "kexlab" and "op" name the kexlab
//     scheme and op the peer's scheme is tested against, "differs" what
//     differs (group, key confirmation, KDF);
//   - kexlab writes "sample I" (I the index of a scheme); the driver runs
//     one complete exchange of it and answers "I WALL_NS CPU_NS BYTES":
//     wall time (a monotonic clock), the CPU time of the thread that ran
//     it (0 when the driver cannot read one) and the bytes the exchange
//     sent; or "error I MESSAGE" (one line);
//   - "quit", or the end of its input, makes the driver exit.
//
// A driver's registration (the augmented schemes' records) is done once
// before the hello line, as kexlab times registration separately.
package peer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kexlab/kexlab/bench"
)

// Protocol is the version every driver's hello line names.
const Protocol = "kexlab-peer/1"

// ErrProtocol reports a driver line kexlab cannot parse.
var ErrProtocol = errors.New("peer: protocol error")

// maxLine bounds one line of a driver.
const maxLine = 64 << 10

// Hello is a driver's first line.
type Hello struct {
	Protocol string   `json:"protocol"`
	Label    string   `json:"label"`
	Source   string   `json:"source"`
	Schemes  []Scheme `json:"schemes"`
}

// Scheme is one scheme a driver offers.
type Scheme struct {
	Name            string `json:"name"`
	Suite           string `json:"suite"`
	Spec            string `json:"spec"`
	Augmented       bool   `json:"augmented"`
	KeyConfirmation bool   `json:"key_confirmation"`
	Kexlab          string `json:"kexlab"`
	Op              string `json:"op"`
	Differs         string `json:"differs"`
}

// ParseHello parses and checks a hello line.
func ParseHello(line []byte) (Hello, error) {
	var h Hello
	if err := json.Unmarshal(line, &h); err != nil {
		return Hello{}, fmt.Errorf("%w: hello line: %v", ErrProtocol, err)
	}
	if h.Protocol != Protocol {
		return Hello{}, fmt.Errorf("%w: hello names protocol %q, want %q", ErrProtocol, h.Protocol, Protocol)
	}
	if len(h.Schemes) == 0 || len(h.Schemes) > 64 {
		return Hello{}, fmt.Errorf("%w: hello offers %d schemes (1 to 64)", ErrProtocol, len(h.Schemes))
	}
	seen := map[string]bool{}
	for i, s := range h.Schemes {
		if s.Name == "" || seen[s.Name] {
			return Hello{}, fmt.Errorf("%w: scheme %d has an empty or repeated name %q", ErrProtocol, i, s.Name)
		}
		seen[s.Name] = true
		if s.Kexlab != "" && s.Op != bench.OpFull && s.Op != bench.OpOnline {
			return Hello{}, fmt.Errorf("%w: scheme %q: op %q (want %s or %s)", ErrProtocol, s.Name, s.Op, bench.OpFull, bench.OpOnline)
		}
	}
	return h, nil
}

// Reply is a driver's answer to one "sample" request.
type Reply struct {
	Index         int
	WallNs, CPUNs int64
	Bytes         int
	Err           string // the driver's error message, when it failed
}

// ParseReply parses a reply line.
func ParseReply(line string) (Reply, error) {
	if rest, ok := strings.CutPrefix(line, "error "); ok {
		idx, msg, _ := strings.Cut(rest, " ")
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 {
			return Reply{}, fmt.Errorf("%w: error reply %q", ErrProtocol, line)
		}
		if msg == "" {
			msg = "failed (no message)"
		}
		return Reply{Index: i, Err: msg}, nil
	}
	f := strings.Fields(line)
	if len(f) != 4 {
		return Reply{}, fmt.Errorf("%w: reply %q: want 4 fields", ErrProtocol, line)
	}
	var v [4]int64
	for k, s := range f {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return Reply{}, fmt.Errorf("%w: reply %q: field %d is not a count", ErrProtocol, line, k+1)
		}
		v[k] = n
	}
	if v[1] == 0 || v[0] > 1<<20 || v[3] > 1<<30 {
		return Reply{}, fmt.Errorf("%w: reply %q out of range", ErrProtocol, line)
	}
	return Reply{Index: int(v[0]), WallNs: v[1], CPUNs: v[2], Bytes: int(v[3])}, nil
}

// Process is a running driver.
type Process struct {
	Hello Hello
	argv  []string
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	mu    sync.Mutex
	dead  error
}

// Timeout bounds the wait for the hello line and for each reply.
var Timeout = 2 * time.Minute

// Start runs argv and reads its hello line. The driver's standard error
// goes to stderr (nil discards it).
func Start(argv []string, stderr io.Writer) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("peer: empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("peer %s: %w", argv[0], err)
	}
	p := &Process{argv: argv, cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	p.out.Buffer(make([]byte, 4096), maxLine)
	line, err := p.readLine()
	if err == nil {
		p.Hello, err = ParseHello([]byte(line))
	}
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("peer %s: %w", argv[0], err)
	}
	return p, nil
}

// readLine reads one line within Timeout.
func (p *Process) readLine() (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		if p.out.Scan() {
			ch <- result{line: p.out.Text()}
			return
		}
		err := p.out.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		ch <- result{err: fmt.Errorf("%w: the driver's output ended: %v", ErrProtocol, err)}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-time.After(Timeout):
		p.cmd.Process.Kill()
		return "", fmt.Errorf("%w: no line from the driver within %s", ErrProtocol, Timeout)
	}
}

// sample asks for one exchange of scheme i.
func (p *Process) sample(i int) (Reply, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead != nil {
		return Reply{}, p.dead
	}
	fail := func(err error) (Reply, error) {
		p.dead = fmt.Errorf("peer %s: %w", p.argv[0], err)
		return Reply{}, p.dead
	}
	if _, err := fmt.Fprintf(p.in, "sample %d\n", i); err != nil {
		return fail(err)
	}
	line, err := p.readLine()
	if err != nil {
		return fail(err)
	}
	r, err := ParseReply(line)
	if err != nil {
		return fail(err)
	}
	if r.Index != i {
		return fail(fmt.Errorf("%w: asked for scheme %d, the reply is for %d", ErrProtocol, i, r.Index))
	}
	if r.Err != "" {
		return Reply{}, fmt.Errorf("%s: %s", p.Hello.Schemes[i].Name, r.Err)
	}
	return r, nil
}

// Close asks the driver to quit and waits for it (killing it after 10 s).
func (p *Process) Close() error {
	fmt.Fprintln(p.in, "quit")
	p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		return <-done
	}
}

// Peers returns one bench.Peer per scheme the driver offers.
func (p *Process) Peers() []bench.Peer {
	out := make([]bench.Peer, len(p.Hello.Schemes))
	for i := range p.Hello.Schemes {
		out[i] = peerScheme{p: p, i: i}
	}
	return out
}

type peerScheme struct {
	p *Process
	i int
}

func (s peerScheme) Info() bench.SchemeInfo {
	d := s.p.Hello.Schemes[s.i]
	si := bench.SchemeInfo{Name: d.Name, Suite: d.Suite, Spec: d.Spec, Augmented: d.Augmented,
		KeyConfirmation: d.KeyConfirmation, Peer: &bench.PeerOf{Scheme: d.Kexlab, Op: d.Op, Differs: d.Differs}}
	if s.p.Hello.Source != "" {
		si.Spec = strings.TrimSpace(si.Spec + "; driver: " + s.p.Hello.Source)
	}
	return si
}

func (s peerScheme) Sample() (bench.Sample, error) {
	r, err := s.p.sample(s.i)
	if err != nil {
		return bench.Sample{}, err
	}
	return bench.Sample{WallNs: r.WallNs, CPUNs: r.CPUNs, WireBytes: r.Bytes}, nil
}
