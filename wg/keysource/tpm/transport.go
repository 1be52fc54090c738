package tpm

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

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
// it accepts commands.
func OpenTransport(dev string) (transport.TPMCloser, error) {
	switch {
	case strings.HasPrefix(dev, "unix:"):
		return dialStream("unix", strings.TrimPrefix(dev, "unix:"))
	case strings.HasPrefix(dev, "tcp:"):
		return dialStream("tcp", strings.TrimPrefix(dev, "tcp:"))
	case dev == "":
		return nil, fmt.Errorf("%w: no TPM device configured", keysource.ErrTokenNotFound)
	}
	t, err := linuxtpm.Open(dev)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", keysource.ErrTokenNotFound, err)
	}
	return t, nil
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
