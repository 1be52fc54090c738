package dragonfly

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/kexlab/kexlab/internal/group"
	"github.com/kexlab/kexlab/internal/kat"
	"github.com/kexlab/kexlab/pake/dragonfly/internal/core"
)

// RFC 7664 publishes no test vectors. Its commit and shared secret are the
// computations of IEEE 802.11 SAE, so the known-answer tests replay
// IEEE 802.11-2020 Annex J.10 (testdata/ieee80211-2020-annex-j10-commit.json
// says where the numbers were read). The package tests also check hunting
// and pecking against an independent math/big implementation.
//
//go:embed testdata/ieee80211-2020-annex-j10-commit.json
var j10JSON []byte

type j10Vector struct {
	PEX         string `json:"pe_x"`
	PEY         string `json:"pe_y"`
	Private     string `json:"private"`
	Mask        string `json:"mask"`
	Scalar      string `json:"scalar"`
	Element     string `json:"element"`
	PeerScalar  string `json:"peer_scalar"`
	PeerElement string `json:"peer_element"`
	KCK80211    string `json:"kck_80211"`
}

// KnownAnswerTests returns the package's known-answer tests.
func KnownAnswerTests() []kat.Test {
	return []kat.Test{
		{Name: "RFC 7664 §3.3 commit (IEEE 802.11-2020 J.10 values)", Run: katCommit},
		{Name: "RFC 7664 §3.3 shared secret ss (IEEE 802.11-2020 J.10 KCK)", Run: katSharedSecret},
	}
}

// replayScalars returns a reader that makes group.RandomScalar return each
// of the given 32-byte scalars in turn.
func replayScalars(scalars ...[]byte) *bytes.Reader {
	var b []byte
	for _, s := range scalars {
		b = append(b, make([]byte, 16)...)
		b = append(b, s...)
	}
	return bytes.NewReader(b)
}

// j10Peer loads the vector and starts a peer on its PE with its private and
// mask.
func j10Peer() (*j10Vector, *Peer, error) {
	var v j10Vector
	if err := json.Unmarshal(j10JSON, &v); err != nil {
		return nil, nil, err
	}
	pe, err := core.DecodeElement(unhex(v.PEX + v.PEY))
	if err != nil {
		return nil, nil, fmt.Errorf("PE: %w", err)
	}
	p, err := newPeerWithElement(replayScalars(unhex(v.Private), unhex(v.Mask)), pe, []byte("STA-A"), []byte("STA-B"))
	return &v, p, err
}

func katCommit() error {
	v, p, err := j10Peer()
	if err != nil {
		return err
	}
	if got, want := p.Commit(), unhex(v.Scalar+v.Element); !bytes.Equal(got, want) {
		return kat.Mismatch("commit", got, want)
	}
	return nil
}

func katSharedSecret() error {
	v, p, err := j10Peer()
	if err != nil {
		return err
	}
	ss, err := p.processCommit(unhex(v.PeerScalar + v.PeerElement))
	if err != nil {
		return err
	}
	// 802.11's key schedule on ss: keyseed = HMAC-SHA-256(0^32, ss),
	// KCK = L(KDF-SHA-256-512(keyseed, "SAE KCK and PMK", sum), 0, 256).
	m := hmac.New(sha256.New, make([]byte, sha256.Size))
	m.Write(ss)
	sum, err := group.NewScalar().SetCanonicalBytes(unhex(v.PeerScalar))
	if err != nil {
		return err
	}
	sum.Add(sum, p.own.Scalar)
	kck := core.KDFSHA256(m.Sum(nil), "SAE KCK and PMK", sum.Bytes(), 512)[:32]
	if want := unhex(v.KCK80211); !bytes.Equal(kck, want) {
		return kat.Mismatch("KCK from ss", kck, want)
	}
	return nil
}

// unhex decodes embedded hex; the data is fixed, so a bad digit is a bug
// that the tests catch as a mismatch.
func unhex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}
