package loadstudy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// service is a kexlab serve process in study mode.
type service struct {
	cmd *exec.Cmd
	url string
}

// startService starts `kexlab serve -study` on a loopback port with the
// data directory data and a dispatcher taking up to batch tasks: rate
// limits out of the way, cheap client key stretching (scrypt N = 2), as a
// load test needs.
func startService(ctx context.Context, exe string, env []string, data string, batch int) (*service, error) {
	cmd := exec.CommandContext(ctx, exe, "serve", "-study", "-addr", "127.0.0.1:0", "-data", data, "-page=false",
		"-scrypt-n", "2", "-max-batch", strconv.Itoa(batch), "-purge-every", "0",
		"-addr-rate", "1000000", "-addr-burst", "1000000", "-register-rate", "1000000", "-register-burst", "1000000")
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 64 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("loadstudy: starting kexlab serve: %w", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("loadstudy: kexlab serve said %q (%v); its errors: %s", line, err, lastLine(stderr.String()))
	}
	go io.Copy(io.Discard, out)
	return &service{cmd: cmd, url: m[1]}, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// stop ends the service with SIGTERM (SIGKILL after 30 s).
func (s *service) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// cpu returns the service's user + system CPU time from /proc/PID/stat,
// or -1 where it cannot be read.
func (s *service) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	return statCPU(string(b))
}

// statCPU parses utime and stime (fields 14 and 15, in clock ticks of
// 1/100 s, USER_HZ on Linux) of a /proc/PID/stat line; the command name
// (field 2, in parentheses) may hold spaces.
func statCPU(stat string) time.Duration {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseUint(f[11], 10, 63)
	s, err2 := strconv.ParseUint(f[12], 10, 63)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(u+s) * 10 * time.Millisecond
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
