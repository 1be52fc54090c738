//go:build linux

package netlab

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Proc is a process a Lab started.
type Proc struct {
	Name string
	NS   string // "" for this process's namespace

	cmd  *exec.Cmd
	log  tailBuffer
	done chan struct{}
	err  error // set before done is closed
}

// Pid is the process's id (the program's own: ip netns exec execs it).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stats reads the process's counters (ReadStats).
func (p *Proc) Stats() (Stats, error) { return ReadStats(p.Pid()) }

// Log is the process's standard output and error so far (the last 256 KiB).
func (p *Proc) Log() string { return p.log.String() }

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Err is the process's exit error (nil for status 0) once it has exited.
func (p *Proc) Err() error {
	if !p.Exited() {
		return nil
	}
	return p.err
}

// Signal sends sig to the process (an error once it has exited).
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// stopGrace is how long Stop waits after SIGTERM before killing.
const stopGrace = 5 * time.Second

// Stop sends SIGTERM, waits up to 5 s for the process to exit, then kills
// it, and waits for it.
func (p *Proc) Stop() {
	if p.Exited() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// tailBuffer keeps the last maxLog bytes written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

const maxLog = 256 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > maxLog {
		t.b = append(t.b[:0], t.b[len(t.b)-maxLog/2:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
