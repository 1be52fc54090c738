package genkat

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/testvec"
)

func TestParseShared(t *testing.T) {
	for file, want := range map[string]int{
		"lwc/ACE.txt":      1089,
		"lwc/ACE-HASH.txt": 1025,
		"ascon/asconcxof128-LWC_CXOF_KAT_128_512.txt": 1089,
	} {
		recs, err := Parse(testvec.Read(t, file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(recs) != want {
			t.Fatalf("%s: %d records, want %d", file, len(recs), want)
		}
		for i, r := range recs {
			if r.Count != i+1 {
				t.Fatalf("%s: record %d has Count %d", file, i, r.Count)
			}
		}
	}
}

func TestParseFields(t *testing.T) {
	recs, err := Parse([]byte("Count = 7\nKey = 0a0B\nPT = \n\nCount = 8\nMsg = ff\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Count != 7 || recs[1].Count != 8 {
		t.Fatalf("records %+v", recs)
	}
	if k, _ := recs[0].Get("Key"); !bytes.Equal(k, []byte{0x0a, 0x0b}) {
		t.Fatalf("Key = %x", k)
	}
	if pt, ok := recs[0].Get("PT"); !ok || len(pt) != 0 {
		t.Fatalf("PT = %x, %v", pt, ok)
	}
	if _, ok := recs[1].Get("Key"); ok {
		t.Fatal("Key present in record 2")
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"Key = 00\n", "Count = x\n", "Count = 1\nKey 00\n", "Count = 1\nKey = 0\n", "Count = 1\nKey = 00\nKey = 01\n"} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrFormat) {
			t.Errorf("Parse(%q) = %v, want ErrFormat", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("Count = 1\nKey = 00\nPT = \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := Parse(data)
		if err != nil && !errors.Is(err, ErrFormat) {
			t.Fatalf("untyped error %v", err)
		}
		_ = recs
	})
}
