package ascon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kexlab/kexlab/internal/genkat"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/internal/testvec"
)

func hashKATs(t *testing.T, file string, want int) []genkat.Record {
	t.Helper()
	recs, err := genkat.Parse(testvec.Read(t, "ascon/"+file))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != want {
		t.Fatalf("%s: %d records, want %d", file, len(recs), want)
	}
	return recs
}

// writeSplit writes msg to w in chunks of 1, 2, 3, ... bytes.
func writeSplit(t *testing.T, w interface{ Write([]byte) (int, error) }, msg []byte) {
	t.Helper()
	for k := 1; len(msg) > 0; k++ {
		n := min(k, len(msg))
		if m, err := w.Write(msg[:n]); m != n || err != nil {
			t.Fatalf("Write = %d, %v", m, err)
		}
		msg = msg[n:]
	}
}

// readSplit reads n bytes from r in chunks of 1, 2, 3, ... bytes.
func readSplit(r interface{ Read([]byte) (int, error) }, n int) []byte {
	out := make([]byte, n)
	for p, k := out, 1; len(p) > 0; k++ {
		m := min(k, len(p))
		r.Read(p[:m])
		p = p[m:]
	}
	return out
}

func TestHash256KAT(t *testing.T) {
	h := NewHash256()
	if h.Size() != Size || h.BlockSize() != HashRate {
		t.Errorf("Size, BlockSize = %d, %d", h.Size(), h.BlockSize())
	}
	for _, r := range hashKATs(t, "asconhash256-LWC_HASH_KAT_128_256.txt", 1025) {
		f := fields(t, r, "Msg", "MD")
		msg, md := f[0], f[1]
		if got := Sum256(msg); !bytes.Equal(got[:], md) {
			t.Fatalf("Count %d: Sum256 = %x, want %x", r.Count, got, md)
		}
		h.Reset()
		h.Write(msg)
		if got := h.Sum([]byte("x")); !bytes.Equal(got, append([]byte("x"), md...)) {
			t.Fatalf("Count %d: Sum = %x, want x ∥ %x", r.Count, got, md)
		}
		// Sum leaves the running hash unchanged.
		if got := h.Sum(nil); !bytes.Equal(got, md) {
			t.Fatalf("Count %d: second Sum = %x", r.Count, got)
		}
		h.Reset()
		writeSplit(t, h, msg)
		if got := h.Sum(nil); !bytes.Equal(got, md) {
			t.Fatalf("Count %d: Sum after split writes = %x, want %x", r.Count, got, md)
		}
	}
}

func TestXOF128KAT(t *testing.T) {
	x := NewXOF128()
	for _, r := range hashKATs(t, "asconxof128-LWC_XOF_KAT_128_512.txt", 1025) {
		f := fields(t, r, "Msg", "MD")
		msg, md := f[0], f[1]
		if len(md) != 64 {
			t.Fatalf("Count %d: MD is %d bytes", r.Count, len(md))
		}
		x.Reset()
		x.Write(msg)
		got := make([]byte, len(md))
		x.Read(got)
		if !bytes.Equal(got, md) {
			t.Fatalf("Count %d: XOF128 = %x, want %x", r.Count, got, md)
		}
		x.Reset()
		writeSplit(t, x, msg)
		if got := readSplit(x, len(md)); !bytes.Equal(got, md) {
			t.Fatalf("Count %d: XOF128 with split writes and reads = %x", r.Count, got)
		}
	}
}

func TestCXOF128KAT(t *testing.T) {
	for _, r := range hashKATs(t, "asconcxof128-LWC_CXOF_KAT_128_512.txt", 1089) {
		f := fields(t, r, "Msg", "Z", "MD")
		msg, z, md := f[0], f[1], f[2]
		x, err := NewCXOF128(z)
		if err != nil {
			t.Fatal(err)
		}
		x.Write(msg)
		got := make([]byte, len(md))
		x.Read(got)
		if !bytes.Equal(got, md) {
			t.Fatalf("Count %d: CXOF128 = %x, want %x", r.Count, got, md)
		}
		// Reset keeps the customization string.
		x.Reset()
		writeSplit(t, x, msg)
		if got := readSplit(x, len(md)); !bytes.Equal(got, md) {
			t.Fatalf("Count %d: CXOF128 after Reset = %x", r.Count, got)
		}
	}
}

func TestXOFErrors(t *testing.T) {
	if _, err := NewCXOF128(make([]byte, MaxCustomizationSize)); err != nil {
		t.Errorf("NewCXOF128 with a %d-byte Z: %v", MaxCustomizationSize, err)
	}
	if x, err := NewCXOF128(make([]byte, MaxCustomizationSize+1)); x != nil || !errors.Is(err, pakeerr.ErrInvalidParameter) {
		t.Errorf("NewCXOF128 with a %d-byte Z = %v, %v; want ErrInvalidParameter", MaxCustomizationSize+1, x, err)
	}
	x := NewXOF128()
	x.Write([]byte("abc"))
	var out [10]byte
	x.Read(out[:])
	if n, err := x.Write([]byte("d")); n != 0 || !errors.Is(err, pakeerr.ErrState) {
		t.Errorf("Write after Read = %d, %v; want 0, ErrState", n, err)
	}
	var more [10]byte
	x.Read(more[:])
	x.Reset()
	x.Write([]byte("abc"))
	all := make([]byte, 20)
	x.Read(all)
	if !bytes.Equal(all, append(out[:], more[:]...)) {
		t.Errorf("the failed Write changed the output")
	}
}

// TestPermute recomputes Ascon-Hash256 of the empty message and of the
// message 00 (the first two records of the Hash256 KAT file) from Permute
// and the steps of SP 800-232 §5.1 on the byte-ordered state, which checks
// Permute's byte order: S = Ascon-p[12](IV ∥ 0^256) with IV =
// 0x0000080100cc0002 as the little-endian word S0; absorb the padded block
// (0x01 at byte len(msg)) and permute; output S0, permute, S0, ...
func TestPermute(t *testing.T) {
	recs := hashKATs(t, "asconhash256-LWC_HASH_KAT_128_256.txt", 1025)
	for _, r := range recs[:2] {
		f := fields(t, r, "Msg", "MD")
		msg, md := f[0], f[1]
		var s [StateSize]byte
		binary.LittleEndian.PutUint64(s[:8], 0x0000080100cc0002)
		Permute(&s)
		for i, b := range msg {
			s[i] ^= b
		}
		s[len(msg)] ^= 0x01
		var out []byte
		for range 4 {
			Permute(&s)
			out = append(out, s[:8]...)
		}
		if !bytes.Equal(out, md) {
			t.Errorf("Count %d: hash from Permute = %x, want %x", r.Count, out, md)
		}
	}
}
