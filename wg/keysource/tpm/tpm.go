// Package tpm is the TPM 2.0 key source of the WireGuard PSK rotator: the
// shared key K is a keyed-hash (HMAC-SHA256) object under the TPM's storage
// primary key, and Derive(input) is TPM2_HMAC (TPM 2.0 Part 3 §15.5).
//
// Provisioning imports the shared 32-byte key with TPM2_Create, supplying
// the key as the object's sensitive data (Part 3 §12.1, sensitiveDataOrigin
// CLEAR) inside a parameter-encrypted session salted with the primary key,
// so the key does not cross the bus in the clear. The TPM returns the
// object's private part encrypted under the primary key: the key blob,
// stored in a file, usable only by this TPM (fixedTPM, fixedParent), and
// invalidated by TPM2_Clear. Open recreates the primary key (the TCG ECC
// P-256 SRK template, deterministic from the owner seed), loads the blob and
// keeps the HMAC key loaded until Close.
//
// Derive's input and output cross the bus in the clear, as they do for a
// PKCS#11 token; an attacker on the bus sees the PSK of that step.
package tpm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/wg/keysource"
)

// ErrBlobFormat: a key blob does not parse.
var ErrBlobFormat = errors.New("tpm: malformed key blob")

// hmacTemplate is the public area of the imported key: an HMAC-SHA256
// keyed-hash object, usable only to sign (HMAC), bound to this TPM and
// parent, with the user role authorised by an empty password.
var hmacTemplate = tpm2.TPMTPublic{
	Type:    tpm2.TPMAlgKeyedHash,
	NameAlg: tpm2.TPMAlgSHA256,
	ObjectAttributes: tpm2.TPMAObject{
		FixedTPM:     true,
		FixedParent:  true,
		UserWithAuth: true,
		SignEncrypt:  true,
		NoDA:         true,
	},
	Parameters: tpm2.NewTPMUPublicParms(tpm2.TPMAlgKeyedHash, &tpm2.TPMSKeyedHashParms{
		Scheme: tpm2.TPMTKeyedHashScheme{
			Scheme:  tpm2.TPMAlgHMAC,
			Details: tpm2.NewTPMUSchemeKeyedHash(tpm2.TPMAlgHMAC, &tpm2.TPMSSchemeHMAC{HashAlg: tpm2.TPMAlgSHA256}),
		},
	}),
}

// primary is a loaded storage primary key.
type primary struct {
	handle tpm2.TPMHandle
	name   tpm2.TPM2BName
	pub    tpm2.TPMTPublic
}

func createPrimary(t transport.TPM) (*primary, error) {
	rsp, err := tpm2.CreatePrimary{
		PrimaryHandle: tpm2.TPMRHOwner,
		InPublic:      tpm2.New2B(tpm2.ECCSRKTemplate),
	}.Execute(t)
	if err != nil {
		return nil, fmt.Errorf("%w: TPM2_CreatePrimary: %v", keysource.ErrDevice, err)
	}
	pub, err := rsp.OutPublic.Contents()
	if err != nil {
		flush(t, rsp.ObjectHandle)
		return nil, fmt.Errorf("%w: primary public area: %v", keysource.ErrDevice, err)
	}
	return &primary{handle: rsp.ObjectHandle, name: rsp.Name, pub: *pub}, nil
}

func flush(t transport.TPM, h tpm2.TPMHandle) {
	tpm2.FlushContext{FlushHandle: h}.Execute(t)
}

func (p *primary) auth() tpm2.AuthHandle {
	return tpm2.AuthHandle{Handle: p.handle, Name: p.name, Auth: tpm2.PasswordAuth(nil)}
}

// ImportKey makes key (1 to 128 bytes; the rotator uses 32) an HMAC-SHA256
// object of the TPM t and returns its key blob (see ParseBlob). The key is
// sent in a session with AES-128 parameter encryption salted with the
// primary key.
func ImportKey(t transport.TPM, key []byte) ([]byte, error) {
	if len(key) < 1 || len(key) > 128 {
		return nil, fmt.Errorf("%w: HMAC key of %d bytes", keysource.ErrKeyFile, len(key))
	}
	p, err := createPrimary(t)
	if err != nil {
		return nil, err
	}
	defer flush(t, p.handle)
	sens := tpm2.TPM2BSensitiveCreate{Sensitive: &tpm2.TPMSSensitiveCreate{
		Data: tpm2.NewTPMUSensitiveCreate(&tpm2.TPM2BSensitiveData{Buffer: key}),
	}}
	enc := tpm2.HMAC(tpm2.TPMAlgSHA256, 16,
		tpm2.AESEncryption(128, tpm2.EncryptIn), tpm2.Salted(p.handle, p.pub))
	rsp, err := tpm2.Create{
		ParentHandle: p.auth(),
		InSensitive:  sens,
		InPublic:     tpm2.New2B(hmacTemplate),
	}.Execute(t, enc)
	if err != nil {
		return nil, fmt.Errorf("%w: TPM2_Create: %v", keysource.ErrDevice, err)
	}
	return marshalBlob(rsp.OutPublic.Bytes(), rsp.OutPrivate.Buffer), nil
}

// blobMagic starts a key blob, which continues with the object's
// TPM2B_PUBLIC and TPM2B_PRIVATE, each a 2-byte big-endian size and that
// many bytes (TPM 2.0 Part 2 §12.2.5, §12.3.7).
const blobMagic = "kexlab-wg tpm key v1\n"

func marshalBlob(pub, priv []byte) []byte {
	b := []byte(blobMagic)
	b = binary.BigEndian.AppendUint16(b, uint16(len(pub)))
	b = append(b, pub...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(priv)))
	return append(b, priv...)
}

// ParseBlob splits a key blob into the object's public area (checked to be
// an HMAC-SHA256 keyed-hash object) and its private part.
func ParseBlob(b []byte) (pub tpm2.TPM2BPublic, priv tpm2.TPM2BPrivate, err error) {
	rest, ok := bytes.CutPrefix(b, []byte(blobMagic))
	if !ok {
		return pub, priv, fmt.Errorf("%w: bad magic", ErrBlobFormat)
	}
	field := func() ([]byte, bool) {
		if len(rest) < 2 {
			return nil, false
		}
		n := int(binary.BigEndian.Uint16(rest))
		if n == 0 || len(rest)-2 < n {
			return nil, false
		}
		f := rest[2 : 2+n]
		rest = rest[2+n:]
		return f, true
	}
	pb, ok1 := field()
	kb, ok2 := field()
	if !ok1 || !ok2 || len(rest) != 0 {
		return pub, priv, fmt.Errorf("%w: bad length", ErrBlobFormat)
	}
	tp, err := tpm2.Unmarshal[tpm2.TPMTPublic](pb)
	if err != nil {
		return pub, priv, fmt.Errorf("%w: public area: %v", ErrBlobFormat, err)
	}
	if tp.Type != tpm2.TPMAlgKeyedHash || tp.NameAlg != tpm2.TPMAlgSHA256 || !tp.ObjectAttributes.SignEncrypt {
		return pub, priv, fmt.Errorf("%w: not an HMAC key", ErrBlobFormat)
	}
	kh, err := tp.Parameters.KeyedHashDetail()
	if err != nil || kh.Scheme.Scheme != tpm2.TPMAlgHMAC {
		return pub, priv, fmt.Errorf("%w: not an HMAC key", ErrBlobFormat)
	}
	if d, err := kh.Scheme.Details.HMAC(); err != nil || d.HashAlg != tpm2.TPMAlgSHA256 {
		return pub, priv, fmt.Errorf("%w: not HMAC-SHA256", ErrBlobFormat)
	}
	return tpm2.BytesAs2B[tpm2.TPMTPublic](bytes.Clone(pb)), tpm2.TPM2BPrivate{Buffer: bytes.Clone(kb)}, nil
}

// Source is a keysource.Source over an HMAC key loaded in a TPM.
type Source struct {
	name string
	mu   sync.Mutex
	t    transport.TPMCloser
	key  tpm2.TPMHandle
	kn   tpm2.TPM2BName
}

// Open opens the TPM dev (see OpenTransport) and loads the key blob made by
// ImportKey.
func Open(dev string, blob []byte) (*Source, error) {
	pub, priv, err := ParseBlob(blob)
	if err != nil {
		return nil, err
	}
	t, err := OpenTransport(dev)
	if err != nil {
		return nil, err
	}
	p, err := createPrimary(t)
	if err != nil {
		t.Close()
		return nil, err
	}
	rsp, err := tpm2.Load{ParentHandle: p.auth(), InPrivate: priv, InPublic: pub}.Execute(t)
	flush(t, p.handle)
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("%w: TPM2_Load (a blob of another TPM, or a cleared TPM?): %v", keysource.ErrKeyNotFound, err)
	}
	return &Source{name: "tpm:" + dev, t: t, key: rsp.ObjectHandle, kn: rsp.Name}, nil
}

// maxBlobFile bounds a blob file (a TPM2B_PUBLIC and a TPM2B_PRIVATE are a
// few hundred bytes).
const maxBlobFile = 4096

// OpenFile is Open with the blob read from a file (a regular file of at
// most 4 KiB, fileio.ReadFile).
func OpenFile(dev, blobPath string) (*Source, error) {
	b, err := fileio.ReadFile(blobPath, maxBlobFile)
	if errors.Is(err, fileio.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %v", ErrBlobFormat, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", keysource.ErrKeyFile, err)
	}
	return Open(dev, b)
}

// Name implements keysource.Source.
func (s *Source) Name() string { return s.name }

// Derive implements keysource.Source with TPM2_HMAC(key, input, SHA-256).
func (s *Source) Derive(input []byte) ([32]byte, error) {
	var out [32]byte
	if err := keysource.CheckInput(input); err != nil {
		return out, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.t == nil {
		return out, keysource.ErrClosed
	}
	rsp, err := tpm2.Hmac{
		Handle:  tpm2.AuthHandle{Handle: s.key, Name: s.kn, Auth: tpm2.PasswordAuth(nil)},
		Buffer:  tpm2.TPM2BMaxBuffer{Buffer: input},
		HashAlg: tpm2.TPMAlgSHA256,
	}.Execute(s.t)
	if err != nil {
		return out, fmt.Errorf("%w: TPM2_HMAC: %v", keysource.ErrDevice, err)
	}
	defer clear(rsp.OutHMAC.Buffer)
	if len(rsp.OutHMAC.Buffer) != len(out) {
		return out, fmt.Errorf("%w: TPM2_HMAC returned %d bytes", keysource.ErrDevice, len(rsp.OutHMAC.Buffer))
	}
	copy(out[:], rsp.OutHMAC.Buffer)
	return out, nil
}

// Close flushes the key from the TPM and closes the transport.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.t == nil {
		return nil
	}
	flush(s.t, s.key)
	err := s.t.Close()
	s.t = nil
	return err
}

var _ keysource.Source = (*Source)(nil)
