package tpm

import (
	"errors"
	"fmt"
	"sync"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/wg/keysource"
)

// Options are the optional settings of OpenWith and OpenFileWith.
type Options struct {
	// AuthFile names a file holding the key's authorization value, for a
	// key imported with one (ImportKeyAuth): a regular file of mode 0600
	// or stricter, read by ReadAuthFile. Leave it empty for a key imported
	// without one.
	AuthFile string
}

// ReadAuthFile reads an authorization value from a file as package p11
// reads a PIN file (keysource.ReadPINFile: a regular file of at most
// 4 KiB, mode 0600 or stricter, a trailing newline ignored, not empty)
// and checks that the TPM can take it: at most MaxAuthLen bytes, no NUL
// byte (keysource.ErrKeyFile otherwise). The caller clears the result.
func ReadAuthFile(path string) ([]byte, error) {
	auth, err := keysource.ReadPINFile(path)
	if err != nil {
		return nil, err
	}
	if err := checkAuth(auth); err != nil {
		clear(auth)
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return auth, nil
}

// Source is a keysource.Source over an HMAC key loaded in a TPM. It is
// safe for concurrent use: its TPM commands are serialised by a mutex.
//
// For a key with an authorization value, the Source keeps a copy of the
// value until Close zeroes it: reconnecting (see the package
// documentation) starts a new session, which needs it, and the file it
// came from may be gone by then. go-tpm also derives a per-command HMAC
// key from the value, in buffers it does not clear.
type Source struct {
	name string
	dev  string
	pub  tpm2.TPM2BPublic
	priv tpm2.TPM2BPrivate

	mu     sync.Mutex
	auth   []byte              // the authorization value; nil without one; zeroed by Close
	t      transport.TPMCloser // nil while disconnected
	key    tpm2.TPMHandle      // the loaded HMAC key, while connected
	kn     tpm2.TPM2BName      // its name
	sess   tpm2.Session        // the salted HMAC session, for a key with an authorization value
	refuse error               // the TPM refused the authorization: every Derive returns this
	closed bool
}

// Open opens the TPM dev (see OpenTransport) and loads the key blob made by
// ImportKey, for a key without an authorization value; see OpenWith.
func Open(dev string, blob []byte) (*Source, error) {
	return OpenWith(dev, blob, Options{})
}

// OpenWith opens the TPM dev (see OpenTransport) and loads the key blob
// made by ImportKey or ImportKeyAuth; for a key imported with an
// authorization value, opt.AuthFile must name a file holding it. It then
// checks the value (or its absence) with one TPM2_HMAC. It fails with
// ErrBlobFormat, ErrAuth (a wrong value, a missing one, or one given for
// a key imported without one), keysource.ErrTokenNotFound (no TPM at
// dev), keysource.ErrKeyNotFound (the blob does not load: another TPM's,
// or a cleared TPM), keysource.ErrKeyFile or keysource.ErrPermissions (the
// value's file) or keysource.ErrDevice.
func OpenWith(dev string, blob []byte, opt Options) (*Source, error) {
	pub, priv, err := ParseBlob(blob)
	if err != nil {
		return nil, err
	}
	s := &Source{name: "tpm:" + dev, dev: dev, pub: pub, priv: priv}
	if opt.AuthFile != "" {
		if s.auth, err = ReadAuthFile(opt.AuthFile); err != nil {
			return nil, err
		}
	}
	if err := s.connect(); err != nil {
		clear(s.auth)
		return nil, err
	}
	// The key does not record whether it has a value: ask the TPM now, so
	// that a wrong or missing one fails Open, not the first rotation.
	mac, err := s.hmac(nil)
	clear(mac)
	if err != nil {
		s.disconnect(!isTPMError(err))
		clear(s.auth)
		err = s.hmacError(err)
		switch {
		case errors.Is(err, ErrAuth) && opt.AuthFile == "":
			err = fmt.Errorf("%w (a key imported with an authorization value? give its file)", err)
		case errors.Is(err, ErrAuth):
			err = fmt.Errorf("%w (a wrong value in %s, or a key imported without one)", err, opt.AuthFile)
		}
		return nil, err
	}
	return s, nil
}

// maxBlobFile bounds a blob file (a TPM2B_PUBLIC and a TPM2B_PRIVATE are a
// few hundred bytes).
const maxBlobFile = 4096

// OpenFile is Open with the blob read from a file (a regular file of at
// most 4 KiB, fileio.ReadFile).
func OpenFile(dev, blobPath string) (*Source, error) {
	return OpenFileWith(dev, blobPath, Options{})
}

// OpenFileWith is OpenWith with the blob read from a file (a regular file
// of at most 4 KiB, fileio.ReadFile).
func OpenFileWith(dev, blobPath string, opt Options) (*Source, error) {
	b, err := fileio.ReadFile(blobPath, maxBlobFile)
	if errors.Is(err, fileio.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %v", ErrBlobFormat, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", keysource.ErrKeyFile, err)
	}
	return OpenWith(dev, b, opt)
}

// connect opens the transport, recreates the primary key, loads the blob
// under it and, for a key with an authorization value, starts an HMAC
// session salted with the primary key (which needs the primary key loaded
// only while the session starts). The caller holds mu or owns s alone.
func (s *Source) connect() error {
	t, err := OpenTransport(s.dev)
	if err != nil {
		return err
	}
	p, err := createPrimary(t)
	if err != nil {
		t.Close()
		return err
	}
	rsp, err := tpm2.Load{ParentHandle: p.auth(), InPrivate: s.priv, InPublic: s.pub}.Execute(t)
	if err != nil {
		flush(t, p.handle)
		t.Close()
		if isTPMError(err) {
			return fmt.Errorf("%w: TPM2_Load (a blob of another TPM, or a cleared TPM?): %v", keysource.ErrKeyNotFound, err)
		}
		return fmt.Errorf("%w: TPM2_Load: %v", keysource.ErrDevice, err)
	}
	var sess tpm2.Session
	if s.auth != nil {
		sess, _, err = tpm2.HMACSession(t, tpm2.TPMAlgSHA256, 16, tpm2.Auth(s.auth), tpm2.Salted(p.handle, p.pub))
		if err != nil {
			flush(t, rsp.ObjectHandle)
			flush(t, p.handle)
			t.Close()
			return fmt.Errorf("%w: starting a salted HMAC session (TPM2_StartAuthSession): %v", keysource.ErrDevice, err)
		}
	}
	flush(t, p.handle)
	s.t, s.key, s.kn, s.sess = t, rsp.ObjectHandle, rsp.Name, sess
	return nil
}

// disconnect flushes the session and the key (unless the transport has
// failed: a stream that lost a response is out of step, and a hung one
// would make each flush wait for the command timeout) and closes the
// transport. The caller holds mu or owns s alone.
func (s *Source) disconnect(transportFailed bool) error {
	if s.t == nil {
		return nil
	}
	if !transportFailed {
		if s.sess != nil {
			flush(s.t, s.sess.Handle())
		}
		flush(s.t, s.key)
	}
	err := s.t.Close()
	s.t, s.sess = nil, nil
	return err
}

// hmac runs TPM2_HMAC on the loaded key; the caller clears the result.
func (s *Source) hmac(input []byte) ([]byte, error) {
	var auth tpm2.Session = tpm2.PasswordAuth(nil)
	if s.sess != nil {
		auth = s.sess
	}
	rsp, err := tpm2.Hmac{
		Handle:  tpm2.AuthHandle{Handle: s.key, Name: s.kn, Auth: auth},
		Buffer:  tpm2.TPM2BMaxBuffer{Buffer: input},
		HashAlg: tpm2.TPMAlgSHA256,
	}.Execute(s.t)
	if err != nil {
		return nil, err
	}
	return rsp.OutHMAC.Buffer, nil
}

// isTPMError reports whether err is a response code of the TPM, rather
// than a failure of the transport or of go-tpm.
func isTPMError(err error) bool {
	var rc tpm2.TPMRC
	return errors.As(err, &rc)
}

// lost reports whether TPM2_HMAC failed in a way that reconnecting may
// mend: not a response of the TPM (the transport failed, or a response
// did not parse or authenticate), or a TPM that no longer has the key or
// the session loaded.
func lost(err error) bool {
	return !isTPMError(err) || errors.Is(err, tpm2.TPMRCReferenceH0) ||
		errors.Is(err, tpm2.TPMRCReferenceS0) || errors.Is(err, tpm2.TPMRCHandle)
}

// hmacError maps an error of TPM2_HMAC to ErrAuth or keysource.ErrDevice.
// A refused authorization value is remembered, so that the TPM is not
// asked again. The caller holds mu or owns s alone.
func (s *Source) hmacError(err error) error {
	switch {
	case errors.Is(err, tpm2.TPMRCAuthFail) || errors.Is(err, tpm2.TPMRCBadAuth):
		s.refuse = fmt.Errorf("%w: TPM2_HMAC: the TPM refused the authorization (%v); this source will not try again", ErrAuth, err)
		return s.refuse
	}
	return fmt.Errorf("%w: TPM2_HMAC: %v", keysource.ErrDevice, err)
}

// Name implements keysource.Source.
func (s *Source) Name() string { return s.name }

// Derive implements keysource.Source with TPM2_HMAC(key, input, SHA-256).
// On a lost TPM it reconnects and retries once (see the package
// documentation); if reconnecting fails, the error says so, wrapping the
// reason (keysource.ErrTokenNotFound, ErrKeyNotFound or ErrDevice), and
// the next Derive tries again.
func (s *Source) Derive(input []byte) ([32]byte, error) {
	var out [32]byte
	if err := keysource.CheckInput(input); err != nil {
		return out, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return out, keysource.ErrClosed
	}
	if s.refuse != nil {
		return out, s.refuse
	}
	if s.t == nil {
		if err := s.connect(); err != nil {
			return out, fmt.Errorf("tpm: reconnecting to %s failed, the next Derive tries again: %w", s.dev, err)
		}
	}
	mac, err := s.hmac(input)
	if err != nil && lost(err) {
		s.disconnect(!isTPMError(err))
		if cerr := s.connect(); cerr != nil {
			return out, fmt.Errorf("tpm: TPM2_HMAC failed (%v); reconnecting to %s failed, the next Derive tries again: %w", err, s.dev, cerr)
		}
		mac, err = s.hmac(input)
		if err != nil && lost(err) {
			s.disconnect(!isTPMError(err))
		}
	}
	if err != nil {
		return out, s.hmacError(err)
	}
	defer clear(mac)
	if len(mac) != len(out) {
		return out, fmt.Errorf("%w: TPM2_HMAC returned %d bytes", keysource.ErrDevice, len(mac))
	}
	copy(out[:], mac)
	return out, nil
}

// Close flushes the key (and the session) from the TPM, closes the
// transport and zeroes the authorization value. It is idempotent.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	err := s.disconnect(false)
	clear(s.auth)
	s.auth = nil
	s.closed = true
	return err
}

var _ keysource.Source = (*Source)(nil)
