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
// # Authorization value
//
// A key may be imported with an authorization value (its userAuth;
// ImportKeyAuth), read from a file like a PKCS#11 PIN (ReadAuthFile). The
// blob alone then no longer lets someone with access to the TPM use the
// key: TPM2_HMAC must prove knowledge of the value. A Source proves it in
// an HMAC session salted with the primary key (Part 1 §19.6), so the value
// never crosses the bus and an observer of the bus cannot test guesses of
// it offline. At import the value travels inside TPM2_Create's encrypted
// sensitive area, with the key. OpenWith checks the value with one
// TPM2_HMAC before it returns, and a Source whose value the TPM refuses
// does not send it again: every later Derive returns that error.
//
// Such a key keeps noDA set, as a key without a value does: the TPM does
// not count wrong values towards its dictionary-attack lockout (Part 1
// §19.8). Lockout would let a short value chosen by a person resist
// guessing by someone who can use the TPM and holds the blob, but it costs
// availability where this source needs it most. A TPM counts one failure,
// at its next start, for every run that ended without TPM2_Shutdown after
// a DA-protected key was used: measured with swtpm 0.7.1, every restart of
// the emulator (SIGTERM as well as SIGKILL) counts, so a daemon that
// survives TPM restarts (see Reconnection) would see its key locked out
// after a few of them (three with swtpm's defaults), as after a few power
// losses of a real TPM. And a wrong value in a configuration would spend
// tries that every DA-protected object of the TPM (a disk-encryption PIN,
// say) shares. The value is read from a file, not typed, so it can be
// random: 24 random bytes in base64 make 32 characters, MaxAuthLen
// (head -c 24 /dev/urandom | base64 > FILE; chmod 600 FILE). Guessing such
// a value through the TPM is hopeless with or without lockout; a short one
// protects little against someone who may use the TPM and holds the
// blob.
//
// # Reconnection
//
// The TPM may go away under a running Source: an emulator or a resource
// manager restarted, a socket closed. When TPM2_HMAC fails other than with
// a TPM response code (a transport error), or with one that says the key
// or the session is no longer loaded, Derive reopens the transport,
// recreates the primary key, loads the blob again, starts a new session
// for a key with an authorization value, and retries once. If that fails,
// Derive says so and the next Derive tries again. A TPM that was cleared
// in between cannot load the blob any more (keysource.ErrKeyNotFound).
//
// Derive's input and output cross the bus in the clear, as they do for a
// PKCS#11 token; an attacker on the bus sees the PSK of that step.
//
// Without a resource manager (an emulator's socket, /dev/tpm0), each open
// Source holds one loaded object, and one session for a key with an
// authorization value, of the few the TPM has (typically three of each);
// prefer /dev/tpmrm0, which virtualises them.
package tpm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"

	"github.com/kexlab/kexlab/wg/keysource"
)

// ErrBlobFormat: a key blob does not parse.
var ErrBlobFormat = errors.New("tpm: malformed key blob")

// ErrAuth: the TPM refused the key's authorization value: a wrong one, a
// missing one, or one given for a key imported without one. It also
// matches keysource.ErrPIN.
var ErrAuth error = authError{}

type authError struct{}

func (authError) Error() string { return "tpm: authorization value missing or refused" }

// Is makes errors.Is(ErrAuth, keysource.ErrPIN) true.
func (authError) Is(target error) bool { return target == keysource.ErrPIN }

// MaxAuthLen is the longest authorization value: TPM2_Create accepts no
// more than the digest size of the object's name algorithm (Part 3 §12.1),
// SHA-256 here.
const MaxAuthLen = 32

// checkAuth refuses an authorization value the TPM would refuse (too long)
// or that go-tpm would mishandle: the TPM ignores trailing zero bytes of a
// value and go-tpm drops more than those, so NUL bytes are refused.
func checkAuth(auth []byte) error {
	if len(auth) > MaxAuthLen {
		return fmt.Errorf("%w: an authorization value of %d bytes; the TPM takes at most %d (the SHA-256 digest size)", keysource.ErrKeyFile, len(auth), MaxAuthLen)
	}
	if bytes.IndexByte(auth, 0) >= 0 {
		return fmt.Errorf("%w: the authorization value holds a NUL byte", keysource.ErrKeyFile)
	}
	return nil
}

// hmacTemplate is the public area of an imported key: an HMAC-SHA256
// keyed-hash object, usable only to sign (HMAC), bound to this TPM and
// parent, with the user role authorised by its authorization value (empty
// for ImportKey), exempt from dictionary-attack protection (see the
// package documentation).
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
	if errors.Is(err, tpm2.TPMRCInitialize) {
		return nil, fmt.Errorf("%w: TPM2_CreatePrimary: %v (the TPM was not started: run swtpm with --flags startup-clear)", keysource.ErrDevice, err)
	}
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
// object of the TPM t, without an authorization value, and returns its
// key blob (see ParseBlob). The key is sent in a session with AES-128
// parameter encryption salted with the primary key.
func ImportKey(t transport.TPM, key []byte) ([]byte, error) {
	return ImportKeyAuth(t, key, nil)
}

// ImportKeyAuth is ImportKey with the authorization value auth (at most
// MaxAuthLen bytes, no NUL byte; ReadAuthFile reads one from a file),
// which the key then needs to be used (see the package documentation on
// choosing one). An empty auth is ImportKey. The value is sent with the
// key, encrypted. The caller clears auth.
func ImportKeyAuth(t transport.TPM, key, auth []byte) ([]byte, error) {
	if len(key) < 1 || len(key) > 128 {
		return nil, fmt.Errorf("%w: HMAC key of %d bytes", keysource.ErrKeyFile, len(key))
	}
	if err := checkAuth(auth); err != nil {
		return nil, err
	}
	p, err := createPrimary(t)
	if err != nil {
		return nil, err
	}
	defer flush(t, p.handle)
	sens := tpm2.TPM2BSensitiveCreate{Sensitive: &tpm2.TPMSSensitiveCreate{
		UserAuth: tpm2.TPM2BAuth{Buffer: auth},
		Data:     tpm2.NewTPMUSensitiveCreate(&tpm2.TPM2BSensitiveData{Buffer: key}),
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
// an HMAC-SHA256 keyed-hash object) and its private part. Whether the key
// has an authorization value is not in the blob.
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
