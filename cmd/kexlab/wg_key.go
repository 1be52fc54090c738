package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"

	"github.com/kexlab/kexlab/wg/keysource"
	"github.com/kexlab/kexlab/wg/keysource/p11"
	"github.com/kexlab/kexlab/wg/keysource/tpm"
)

func cmdWGKey(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wg key", stderr)
	out := fs.String("out", "", "write a new random key to this file (mode 0600)")
	generate := fs.Bool("p11-generate", false, "generate the HMAC key -p11-key in the token (extractable only wrapped)")
	export := fs.String("p11-export", "", "export -p11-key wrapped under the KEK -p11-kek to this file")
	imp := fs.String("p11-import", "", "import a wrapped key file as -p11-key, unwrapping under -p11-kek")
	kek := fs.String("p11-kek", "wg-kek", "label of the shared key-encryption key")
	tpmImport := fs.String("tpm-import", "", "import this key file into the TPM (-tpm) and write the blob to -tpm-blob")
	sf := addSourceFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *out != "":
		if err := keysource.CreateKeyFile(*out, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
		return nil
	case *generate || *export != "" || *imp != "":
		t, err := p11.OpenToken(sf.p11Config())
		if err != nil {
			return err
		}
		defer t.Close()
		switch {
		case *generate:
			if err := t.GenerateKey(*sf.p11Key); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "generated %q in token %q\n", *sf.p11Key, *sf.p11Token)
		case *export != "":
			w, err := t.Export(*sf.p11Key, *kek)
			if err != nil {
				return err
			}
			b, err := w.MarshalText()
			if err != nil {
				return err
			}
			if err := os.WriteFile(*export, append(b, '\n'), 0o600); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote the wrapped key to %s\n", *export)
		default:
			b, err := os.ReadFile(*imp)
			if err != nil {
				return err
			}
			var w p11.Wrapped
			if err := w.UnmarshalText(trimNL(b)); err != nil {
				return err
			}
			if err := t.Import(*sf.p11Key, *kek, w); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "imported %q into token %q\n", *sf.p11Key, *sf.p11Token)
		}
		return nil
	case *tpmImport != "":
		if *sf.tpmDev == "" || *sf.tpmBlob == "" {
			return fmt.Errorf("%w: -tpm-import needs -tpm and -tpm-blob", errUsage)
		}
		raw, err := keysource.ReadSecretFile(*tpmImport)
		if err != nil {
			return err
		}
		defer clear(raw)
		key := make([]byte, 33)
		defer clear(key)
		n, err := base64.StdEncoding.Strict().Decode(key, trimNL(raw))
		if err != nil || n != keysource.KeySize {
			return fmt.Errorf("%w: %s", keysource.ErrKeyFile, *tpmImport)
		}
		t, err := tpm.OpenTransport(*sf.tpmDev)
		if err != nil {
			return err
		}
		defer t.Close()
		blob, err := tpm.ImportKey(t, key[:n])
		if err != nil {
			return err
		}
		if err := os.WriteFile(*sf.tpmBlob, blob, 0o600); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the TPM key blob to %s\n", *sf.tpmBlob)
		return nil
	}
	return fmt.Errorf("%w: give -out, -p11-generate, -p11-export, -p11-import or -tpm-import", errUsage)
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
