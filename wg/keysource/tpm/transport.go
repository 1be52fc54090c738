package tpm

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"
	"github.com/google/go-tpm/tpm2/transport/linuxtpm"

	"github.com/kexlab/kexlab/wg/keysource"
)

// OpenTransport opens a TPM:
//
//   - "/dev/tpmrm0" (any path): a TPM character device; prefer the kernel
//     resource manager /dev/tpmrm0 to /dev/tpm0;
//   - "unix:PATH": a TPM emulator's command socket, e.g. swtpm socket
//     --server type=unixio,path=PATH --flags not-need-init,startup-clear;
//   - "tcp:HOST:PORT": the same over TCP (swtpm --server type=tcp).
//
// The socket forms carry raw TPM 2.0 command and response buffers (the
// swtpm data channel), not the Microsoft simulator's framed protocol; swtpm
// must be started with startup-clear (or have TPM2_Startup sent) so that
// it accepts commands. swtpm serves one connection at a time: while a
// Source holds one, another client waits.
//
// A command the TPM answers with TPM_RC_RETRY, TPM_RC_YIELDED or
// TPM_RC_TESTING (it did not start or finish the command and asks for it
// again; Part 2 §6.6.3) is sent again, unchanged, as a TSS does, up to
// maxResends times with a growing pause. A TPM answers TPM_RC_RETRY, for
// instance, to the first authorization of a DA-protected object after
// TPM2_Startup, while it records its state in NV memory.
func OpenTransport(dev string) (transport.TPMCloser, error) {
	var t transport.TPMCloser
	var err error
	switch {
	case strings.HasPrefix(dev, "unix:"):
		t, err = dialStream("unix", strings.TrimPrefix(dev, "unix:"))
	case strings.HasPrefix(dev, "tcp:"):
		t, err = dialStream("tcp", strings.TrimPrefix(dev, "tcp:"))
	case dev == "":
		return nil, fmt.Errorf("%w: no TPM device configured", keysource.ErrTokenNotFound)
	default:
		if t, err = linuxtpm.Open(dev); err != nil {
			err = fmt.Errorf("%w: %v", keysource.ErrTokenNotFound, err)
		}
	}
	if err != nil {
		return nil, err
	}
	return resender{t}, nil
}

const (
	maxResends  = 10
	firstPause  = 5 * time.Millisecond
	longestWait = 500 * time.Millisecond
)

// resender sends a command again while the TPM answers that it should be.
// A command the TPM did not execute left its sessions as they were, so
// the same bytes, with the same authorizations, are valid again.
type resender struct {
	transport.TPMCloser
}

// Send implements transport.TPM.
func (r resender) Send(cmd []byte) ([]byte, error) {
	pause := firstPause
	for i := 0; ; i++ {
		rsp, err := r.TPMCloser.Send(cmd)
		if err != nil || len(rsp) < headerSize || i == maxResends {
			return rsp, err
		}
		switch tpm2.TPMRC(binary.BigEndian.Uint32(rsp[6:10])) {
		case tpm2.TPMRCRetry, tpm2.TPMRCYielded, tpm2.TPMRCTesting:
		default:
			return rsp, nil
		}
		time.Sleep(pause)
		pause = min(2*pause, longestWait)
	}
}

// stream is a TPM reached over a stream socket: each command is written
// whole and answered by one response, whose length is in its header
// (TPM 2.0 Part 1 §18.10: tag, responseSize, responseCode).
type stream struct {
	mu   sync.Mutex
	conn net.Conn
}

const (
	headerSize     = 10
	maxResponse    = 8192 // well above MAX_RESPONSE_SIZE of common TPMs (4096)
	commandTimeout = 2 * time.Minute
)

func dialStream(network, addr string) (*stream, error) {
	c, err := net.DialTimeout(network, addr, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", keysource.ErrTokenNotFound, err)
	}
	return &stream{conn: c}, nil
}

// Send implements transport.TPM.
func (s *stream) Send(cmd []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil, keysource.ErrClosed
	}
	s.conn.SetDeadline(time.Now().Add(commandTimeout))
	if _, err := s.conn.Write(cmd); err != nil {
		return nil, fmt.Errorf("%w: writing TPM command: %v", keysource.ErrDevice, err)
	}
	var hdr [headerSize]byte
	if _, err := io.ReadFull(s.conn, hdr[:]); err != nil {
		return nil, fmt.Errorf("%w: reading TPM response: %v", keysource.ErrDevice, err)
	}
	n := binary.BigEndian.Uint32(hdr[2:6])
	if n < headerSize || n > maxResponse {
		return nil, fmt.Errorf("%w: TPM response size %d", keysource.ErrDevice, n)
	}
	rsp := make([]byte, n)
	copy(rsp, hdr[:])
	if _, err := io.ReadFull(s.conn, rsp[headerSize:]); err != nil {
		return nil, fmt.Errorf("%w: reading TPM response: %v", keysource.ErrDevice, err)
	}
	return rsp, nil
}

// Close implements transport.TPMCloser.
func (s *stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close()
	s.conn = nil
	return err
}
