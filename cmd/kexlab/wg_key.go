package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/kexlab/kexlab/internal/fileio"
	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11"
	"github.com/kexlab/kexlab/wg/keysource/tpm"
)

// maxWrappedFile bounds a wrapped key file of -p11-import: one line of
// text, under 200 bytes for a 32-byte key.
const maxWrappedFile = 4096

// cmdWGKey provisions keys, one action per call:
//
//	-out FILE                 a new random key file
//	-p11-import-kek FILE      the shared AES-256 KEK (a key file) into a token
//	-p11-generate             a new key in a token: HMAC, or AES with
//	                          -p11-key-type aes (tokens without HMAC-SHA256)
//	-p11-export FILE          that key, wrapped under the KEK, to a file
//	-p11-import FILE          a wrapped key into another token (of the
//	                          type the file records)
//	-tpm-import FILE          a key file into a TPM, writing -tpm-blob; with
//	                          -tpm-auth-file, with that authorization value
//	-kcv                      the key check value of the selected key source
//
// The PIN comes from -p11-pin-file or -p11-pin-env, never from argv; so
// does a TPM authorization value (-tpm-auth-file). Key material (-out,
// -p11-export, -tpm-blob) is written only to a new file
// (keysource.WriteNewFile): an existing file or a symbolic link is
// refused.
func cmdWGKey(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg key", stderr)
	out := fs.String("out", "", "write a new random key to this file (mode 0600)")
	importKEK := fs.String("p11-import-kek", "", "import this key file (e.g. made with -out) into the token as the AES-256 KEK -p11-kek; give both peers' tokens the same file")
	generate := fs.Bool("p11-generate", false, "generate the key -p11-key in the token (extractable only wrapped)")
	keyType := fs.String("p11-key-type", "hmac", "type of the key for -p11-generate: hmac (CKM_SHA256_HMAC) or aes (AES-256, CKM_AES_CMAC, for tokens without HMAC-SHA256); -p11-import takes the type from the file and checks it against this flag if given")
	export := fs.String("p11-export", "", "export -p11-key wrapped under the KEK -p11-kek to this file")
	imp := fs.String("p11-import", "", "import a wrapped key file as -p11-key, unwrapping under -p11-kek")
	kek := fs.String("p11-kek", "wg-kek", "label of the shared key-encryption key")
	tpmImport := fs.String("tpm-import", "", "import this key file into the TPM (-tpm) and write the blob to -tpm-blob (a new file); with -tpm-auth-file the key needs that authorization value")
	kcv := fs.Bool("kcv", false, "print the key check value (16 hex digits) of the key of -key-file, -p11-* or -tpm/-tpm-blob; equal values mean equal keys")
	sf := addSourceFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	n := 0
	for _, set := range []bool{*out != "", *importKEK != "", *generate, *export != "", *imp != "", *tpmImport != "", *kcv} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("%w: give one of -out, -p11-import-kek, -p11-generate, -p11-export, -p11-import, -tpm-import or -kcv", errUsage)
	}
	kt, err := p11.ParseKeyType(*keyType)
	if err != nil {
		return fmt.Errorf("%w: -p11-key-type: %v", errUsage, err)
	}
	ktSet := flagSet(fs, "p11-key-type")
	if ktSet && !*generate && *imp == "" {
		return fmt.Errorf("%w: -p11-key-type goes with -p11-generate or -p11-import", errUsage)
	}
	switch {
	case *out != "":
		if err := keysource.CreateKeyFile(*out, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
		return nil
	case *kcv:
		src, err := openKeySource(sf)
		if err != nil {
			return err
		}
		defer src.Close()
		v, err := keysource.CheckValue(src)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, v)
		return nil
	case *tpmImport != "":
		return tpmImportKey(*tpmImport, sf, stdout)
	}

	// The PKCS#11 provisioning actions.
	if *sf.p11Module == "" || *sf.p11Token == "" {
		return fmt.Errorf("%w: PKCS#11 actions need -p11-module and -p11-token", errUsage)
	}
	t, err := p11.OpenToken(sf.p11Config())
	if err != nil {
		return err
	}
	defer t.Close()
	switch {
	case *importKEK != "":
		key, err := readKeyFile(*importKEK)
		if err != nil {
			return err
		}
		defer clear(key)
		if err := t.ImportKEK(*kek, key); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "imported the KEK %q into token %q\n", *kek, *sf.p11Token)
	case *generate:
		gen := t.GenerateKey
		if kt == p11.AES {
			gen = t.GenerateAESKey
		}
		if err := gen(*sf.p11Key); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "generated the %s key %q in token %q\n", kt, *sf.p11Key, *sf.p11Token)
	case *export != "":
		w, err := t.Export(*sf.p11Key, *kek)
		if err != nil {
			return err
		}
		b, err := w.MarshalText()
		if err != nil {
			return err
		}
		if err := keysource.WriteNewFile(*export, append(b, '\n')); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the wrapped key to %s\n", *export)
	default:
		b, err := fileio.ReadFile(*imp, maxWrappedFile)
		if err != nil {
			return err
		}
		var w p11.Wrapped
		if err := w.UnmarshalText(trimNL(b)); err != nil {
			return fmt.Errorf("%s: %w", *imp, err)
		}
		if ktSet && w.KeyType != kt {
			return fmt.Errorf("%w: %s holds a key of type %s, not %s (-p11-key-type)", p11.ErrKeyType, *imp, w.KeyType, kt)
		}
		if err := t.Import(*sf.p11Key, *kek, w); err != nil {
			if errors.Is(err, keysource.ErrDevice) {
				return fmt.Errorf("cannot unwrap %s under the KEK %q (a different KEK, or a corrupted file): %w", *imp, *kek, err)
			}
			return err
		}
		fmt.Fprintf(stdout, "imported the %s key %q into token %q\n", w.KeyType, *sf.p11Key, *sf.p11Token)
	}
	return nil
}

// openKeySource opens the one key source the flags select.
func openKeySource(sf sourceFlags) (keysource.Source, error) {
	if sf.selected() != 1 {
		return nil, fmt.Errorf("%w: select one key source: -key-file, -p11-module (with -p11-token, -p11-key, -p11-pin-file or -p11-pin-env) or -tpm with -tpm-blob (and -tpm-auth-file for a key with an authorization value)", errUsage)
	}
	srcs, err := sf.open()
	if err != nil {
		for _, s := range srcs {
			s.Close()
		}
		return nil, err
	}
	return srcs[0], nil
}

func tpmImportKey(path string, sf sourceFlags, stdout io.Writer) error {
	if *sf.tpmDev == "" || *sf.tpmBlob == "" {
		return fmt.Errorf("%w: -tpm-import needs -tpm and -tpm-blob", errUsage)
	}
	key, err := readKeyFile(path)
	if err != nil {
		return err
	}
	defer clear(key)
	var auth []byte
	if *sf.tpmAuth != "" {
		if auth, err = tpm.ReadAuthFile(*sf.tpmAuth); err != nil {
			return err
		}
		defer clear(auth)
	}
	t, err := tpm.OpenTransport(*sf.tpmDev)
	if err != nil {
		return err
	}
	defer t.Close()
	blob, err := tpm.ImportKeyAuth(t, key, auth)
	if err != nil {
		return err
	}
	if err := keysource.WriteNewFile(*sf.tpmBlob, blob); err != nil {
		return err
	}
	with := ""
	if auth != nil {
		with = " (the key needs the authorization value of " + *sf.tpmAuth + ")"
	}
	fmt.Fprintf(stdout, "wrote the TPM key blob to %s%s\n", *sf.tpmBlob, with)
	return nil
}

// readKeyFile reads a key file (32 bytes in base64, mode 0600; see
// keysource.CreateKeyFile). The caller clears the result.
func readKeyFile(path string) ([]byte, error) {
	raw, err := keysource.ReadSecretFile(path)
	if err != nil {
		return nil, err
	}
	defer clear(raw)
	key := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Strict().Decode(key, trimNL(raw))
	if err != nil || n != keysource.KeySize {
		clear(key)
		return nil, fmt.Errorf("%w: %s does not hold a 32-byte key in base64", keysource.ErrKeyFile, path)
	}
	return key[:n], nil
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
