package mcu

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kexlab/kexlab/internal/genkat"
)

// katFiles are the KAT files, under the vector directory, of each cipher's
// AEAD (genkat Count/Key/Nonce/PT/AD/CT records).
var katFiles = map[string]string{
	"ace":   "lwc/ACE.txt",
	"spix":  "lwc/SPIX.txt",
	"wage":  "lwc/WAGE.txt",
	"ascon": "ascon/asconaead128-LWC_AEAD_KAT_128_128.txt", // SP 800-232
}

// hashFile is the ACE-H-256 KAT file (Count/Msg/MD).
const hashFile = "lwc/ACE-HASH.txt"

// cipherOrder is the order of wifi/lwc.Ciphers().
var cipherOrder = []string{"ace", "spix", "wage", "ascon"}

// kats holds the expected outputs: C||T per cipher and count, and the
// ACE-H-256 digests per count.
type kats struct {
	ae   map[string]map[int][]byte
	hash map[int][]byte
}

// patternBase is where the genkat pattern of a file starts counting: the
// LWC round-2 files count every field from 00; ascon-c's files start the
// nonce at 10, the message at 20 and the AD at 30 (c/kat.c does the same).
func patternBase(cipher string) byte {
	if cipher == "ascon" {
		return 0x10
	}
	return 0
}

func seq(start byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)
	}
	return b
}

// loadKATs reads the KAT files under dir and checks that their inputs are
// exactly the pattern the firmware regenerates: record Count = 33·len(PT)
// + len(AD) + 1 for every length 0..32 of each, the key 00..0f, nonce,
// message and AD counting up from patternBase; for the hash, record Count
// = len(Msg) + 1 with Msg = 00 01 02 ....
func loadKATs(dir string) (*kats, error) {
	k := &kats{ae: map[string]map[int][]byte{}, hash: map[int][]byte{}}
	for _, c := range cipherOrder {
		recs, err := readGenkat(dir, katFiles[c], 1089)
		if err != nil {
			return nil, err
		}
		base := patternBase(c)
		m := map[int][]byte{}
		for i, r := range recs {
			mlen, adlen := i/33, i%33
			want := map[string][]byte{"Key": seq(0, 16), "Nonce": seq(base, 16),
				"PT": seq(2*base, mlen), "AD": seq(3*base, adlen)}
			if r.Count != i+1 {
				return nil, fmt.Errorf("%w: %s: record %d has Count %d", ErrKAT, katFiles[c], i+1, r.Count)
			}
			for name, w := range want {
				if v, ok := r.Get(name); !ok || !bytes.Equal(v, w) {
					return nil, fmt.Errorf("%w: %s: record %d: %s is not the genkat pattern the firmware regenerates", ErrKAT, katFiles[c], r.Count, name)
				}
			}
			ct, ok := r.Get("CT")
			if !ok || len(ct) != mlen+16 {
				return nil, fmt.Errorf("%w: %s: record %d: CT missing or of the wrong length", ErrKAT, katFiles[c], r.Count)
			}
			m[r.Count] = ct
		}
		k.ae[c] = m
	}
	recs, err := readGenkat(dir, hashFile, 1025)
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		msg, ok1 := r.Get("Msg")
		md, ok2 := r.Get("MD")
		if r.Count != i+1 || !ok1 || !ok2 || !bytes.Equal(msg, seq(0, i)) || len(md) != 32 {
			return nil, fmt.Errorf("%w: %s: record %d is not Msg = 00 01 .. of length Count-1 with a 32-byte MD", ErrKAT, hashFile, i+1)
		}
		k.hash[r.Count] = md
	}
	return k, nil
}

func readGenkat(dir, rel string, want int) ([]genkat.Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKAT, err)
	}
	recs, err := genkat.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrKAT, rel, err)
	}
	if len(recs) != want {
		return nil, fmt.Errorf("%w: %s: %d records, want %d", ErrKAT, rel, len(recs), want)
	}
	return recs, nil
}

// shortLen and shortHashLen mirror c/kat.c: the lengths of the KAT subset.
func shortLen(n int) bool {
	switch n {
	case 0, 1, 7, 8, 9, 15, 16, 17, 31, 32:
		return true
	}
	return false
}

func shortHashLen(n int) bool {
	return n <= 1 || (n >= 7 && n <= 9) || (n >= 15 && n <= 17) ||
		(n >= 31 && n <= 33) || (n >= 127 && n <= 129) || n >= 1023
}

// check compares the firmware's KAT lines for cipher with the files:
// passed counts the records whose output matches and whose decryption
// checks passed; total is the number of records the run had to produce.
// The hash records count for ACE. Extra records are errors.
func (k *kats) check(o *Output, cipher string, short bool) (passed, total int, fails []string) {
	got := o.KATs[cipher]
	for c, want := range k.ae[cipher] {
		i := c - 1
		if short && !(shortLen(i/33) && shortLen(i%33)) {
			if _, extra := got[c]; extra {
				fails = append(fails, fmt.Sprintf("%s record %d not in the subset", cipher, c))
			}
			continue
		}
		total++
		switch l, ok := got[c]; {
		case !ok:
			fails = append(fails, fmt.Sprintf("%s record %d missing", cipher, c))
		case !bytes.Equal(l.Out, want):
			fails = append(fails, fmt.Sprintf("%s record %d: C||T = %X, want %X", cipher, c, l.Out, want))
		case !l.OK:
			fails = append(fails, fmt.Sprintf("%s record %d: decryption check failed", cipher, c))
		default:
			passed++
		}
	}
	for c := range got {
		if _, ok := k.ae[cipher][c]; !ok {
			fails = append(fails, fmt.Sprintf("%s record %d is not in the file", cipher, c))
		}
	}
	if cipher != "ace" {
		return passed, total, fails
	}
	for c, want := range k.hash {
		if short && !shortHashLen(c-1) {
			continue
		}
		total++
		switch d, ok := o.Hashes[c]; {
		case !ok:
			fails = append(fails, fmt.Sprintf("ACE-H-256 record %d missing", c))
		case !bytes.Equal(d, want):
			fails = append(fails, fmt.Sprintf("ACE-H-256 record %d: %X, want %X", c, d, want))
		default:
			passed++
		}
	}
	return passed, total, fails
}
