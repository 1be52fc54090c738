package mcu

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const sampleOutput = `info platform atmega128
info short 1
m - delay 0 1049234 16 4
kat spix 1 74D5A923739B1F893C7C005DF8349B62 1
kat spix 35 C84C7A82679A56E3D7D92C2F633A8E286E 1
hash 1 7BB64C8E459CB184FC9A82C508828529AE6A2FA6E74D1CBD017DC3CFF54E4A76
m spix perm 0 85077 1 58
end 0
# simavr cycles 212457503 state 6
`

func TestParse(t *testing.T) {
	o, err := Parse(strings.NewReader(sampleOutput))
	if err != nil {
		t.Fatal(err)
	}
	if o.Info["platform"] != "atmega128" || !o.Ended || o.Failures != 0 || o.Cycles != 212457503 {
		t.Fatalf("%+v", o)
	}
	if l := o.KATs["spix"][35]; len(l.Out) != 17 || !l.OK {
		t.Fatalf("kat 35: %+v", l)
	}
	if len(o.Hashes[1]) != 32 || len(o.Measures) != 2 {
		t.Fatalf("%+v", o)
	}
	if m := o.Measures[1]; m != (MLine{Cipher: "spix", Op: "perm", Variant: 0, Raw: 85077, ISR: 1, Stack: 58}) {
		t.Fatalf("%+v", m)
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{
		"hello\n",
		"kat spix 0 00112233445566778899AABBCCDDEEFF 1\n",
		"kat spix 1090 00112233445566778899AABBCCDDEEFF 1\n",
		"kat foo 1 00112233445566778899AABBCCDDEEFF 1\n",
		"kat spix 1 0011 1\n",
		"kat spix 1 0G112233445566778899AABBCCDDEEFF 1\n",
		"kat spix 1 00112233445566778899AABBCCDDEEFF 2\n",
		"kat spix 1 00112233445566778899AABBCCDDEEFF 1\nkat spix 1 00112233445566778899AABBCCDDEEFF 1\n",
		"hash 1 00\n",
		"m spix perm 0 -1 0 0\n",
		"m spix perm 2 1 0 0\n",
		"m spix perm 0 1 0\n",
		"info a\n",
		"info a b\ninfo a c\n",
		"end 0\nkat spix 1 00112233445566778899AABBCCDDEEFF 1\n",
		"end x\n",
		"# simavr cycles x\n",
		strings.Repeat("x", maxLineBytes+10) + "\n",
		strings.Repeat("info platform atmega128\n", 2),
	} {
		_, err := Parse(strings.NewReader(bad))
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrParse) {
			t.Errorf("Parse(%.60q) = %v, want a *ParseError", bad, err)
		}
	}
	many := strings.Repeat("# comment\n", maxLines+1)
	if _, err := Parse(strings.NewReader(many)); !errors.Is(err, ErrParse) {
		t.Errorf("Parse of %d lines = %v", maxLines+1, err)
	}
}

// FuzzParse: Parse never panics, and what it accepts is within its limits.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sampleOutput))
	f.Add([]byte("kat ace 1 00\n"))
	f.Add([]byte("m - empty 0 20 0 4\nend 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := Parse(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("error %v does not wrap ErrParse", err)
			}
			return
		}
		if len(o.Measures) > maxMeasures || len(o.Info) > 16 {
			t.Fatalf("limits broken: %d measures, %d info", len(o.Measures), len(o.Info))
		}
		for c, m := range o.KATs {
			for n, l := range m {
				if !knownCiphers[c] || n < 1 || n > maxCount || len(l.Out) < 16 || len(l.Out) > maxOutputHex {
					t.Fatalf("kat %s %d: %+v", c, n, l)
				}
			}
		}
	})
}

func sampleMeasurement() *Measurement {
	return &Measurement{Platform: "cortex-m3", ClockHz: 16e6, CycleModel: CortexM3Model, Toolchain: "gcc", Simulator: "qemu",
		Ciphers: []CipherResult{{Cipher: "spix", KATPassed: 100, KATTotal: 100, FlashBytes: 1344, SRAMBytes: 304, StackBytes: 304,
			SetupCycles: 13399, PermCycles: 4436, CyclesPerByte: 284.9, KDFCycles: 39082, MICTalkCycles: 36289, MICFrameCycles: 61177,
			AE128AD0Cycles: 61294, AE128AD16Cycles: 68205, Notes: []string{"n"}}}}
}

func TestJSON(t *testing.T) {
	m := sampleMeasurement()
	path := t.TempDir() + "/sub/m.json"
	if err := WriteJSON(path, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Ciphers[0].MICFrameCycles != 61177 || back.Ciphers[0].CyclesPerByte != 284.9 || back.Platform != "cortex-m3" {
		t.Fatalf("%+v", back)
	}
	var b bytes.Buffer
	if err := back.WriteTable(&b); err != nil || !strings.Contains(b.String(), "spix") {
		t.Fatalf("table: %v\n%s", err, b.String())
	}
	for _, bad := range []string{
		`{"platform":"cortex-m3","clock_hz":16000000,"extra":1}`,
		`{"platform":"msp430","clock_hz":16000000}`,
		`{"platform":"cortex-m3","clock_hz":0}`,
		`{"platform":"cortex-m3","clock_hz":16000000} {}`,
		`{"platform":"cortex-m3","clock_hz":16000000,"ciphers":[{"cipher":"ace"},{"cipher":"ace"}]}`,
		`{"platform":"cortex-m3","clock_hz":16000000,"ciphers":[{"cipher":"ace","kdf_cycles":-1}]}`,
		`{"platform":"cortex-m3","clock_hz":16000000,"ciphers":[{"cipher":"ace","kat_passed":2,"kat_total":1}]}`,
		`{"platform":"cortex-m3","clock_hz":16000000,"ciphers":[{"cipher":"ace","mips":3}]}`,
		`{"platform":"cortex-m3","clock_hz":16000000,"ciphers":[{"cipher":"aes"}]}`,
		`{"platform":"cortex-m3","clock_hz":16000000,"ciphers":[{"cipher":"ace","flash_bytes":3000.5}]}`,
		`{"platform":"cortex-m3","clock_hz":16000000,"ciphers":[{"cipher":"ace","kdf_cycles":NaN}]}`,
		`{"platform":"cortex-m3","clock_hz":"16MHz"}`,
		`{"platform":"cortex-m3","clock_hz":1e400}`,
		`{"platform":"cortex-m3","clock_hz":-16000000}`,
		`[]`,
		strings.Repeat(" ", maxJSON+1),
	} {
		if _, err := DecodeJSON(strings.NewReader(bad)); !errors.Is(err, ErrJSON) {
			t.Errorf("DecodeJSON(%.60q) = %v, want ErrJSON", bad, err)
		}
	}
}

// FuzzDecodeJSON: DecodeJSON never panics, and what it accepts encodes
// and decodes again unchanged.
func FuzzDecodeJSON(f *testing.F) {
	seed, err := json.Marshal(sampleMeasurement())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"platform":"atmega128","clock_hz":16000000,"ciphers":[]}`))
	f.Add([]byte(`{"platform":"cortex-m3","clock_hz":1e6,"ciphers":[{"cipher":"wage","cycles_per_byte":1.5}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeJSON(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrJSON) {
				t.Fatalf("error %v does not wrap ErrJSON", err)
			}
			return
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		if b2, err := json.Marshal(back); err != nil || !bytes.Equal(b2, b) {
			t.Fatalf("round trip changed %s into %s (%v)", b, b2, err)
		}
	})
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		mn, ops string
		class   insnClass
		regs    int
	}{
		{"bne.n", "1f0", clBranch, 0}, {"bls", "1f0", clBranch, 0}, {"bl", "1f0", clBranch, 0},
		{"bics", "r0, r1", clALU, 0}, {"bfi", "r0, r1, #1, #2", clALU, 0}, {"lsls", "r0, r1, #2", clALU, 0},
		{"movs", "r0, #1", clALU, 0}, {"muls", "r0, r1", clALU, 0}, {"mls", "r0, r1, r2, r3", clMLA, 0},
		{"ldr.w", "r3, [r0, #4]", clLoad, 0}, {"ldrne", "r3, [r0]", clLoad, 0}, {"strb", "r3, [r0]", clStore, 0},
		{"ldrd", "r2, r3, [r0]", clDual, 0}, {"pop", "{r4, r5, pc}", clMulti, 3},
		{"stmia.w", "r0!, {r1-r3}", clMulti, 3}, {"push", "{r4, r5, r6, r7, r8, lr}", clMulti, 6},
		{"udiv", "r0, r1, r2", clDiv, 0}, {"tbb", "[pc, r3]", clTable, 0}, {"it", "ne", clALU, 0},
	} {
		class, regs := classify(c.mn, c.ops)
		if class != c.class || regs != c.regs {
			t.Errorf("classify(%q, %q) = %d, %d; want %d, %d", c.mn, c.ops, class, regs, c.class, c.regs)
		}
	}
}

// TestCountTrace times a hand-made trace: bl begin; begin: bx lr (taken,
// 3); ldr (2); ldr after it (1); bl end (taken, 3); end: ...
func TestCountTrace(t *testing.T) {
	dis := []byte(`
 1f0:	f000 f800 	bl	100 <plat_begin>
 100:	4770      	bx	lr
 1f4:	6843      	ldr	r3, [r0, #4]
 1f6:	6883      	ldr	r3, [r0, #8]
 1f8:	f000 f800 	bl	300 <plat_end>
 300:	4770      	bx	lr
 1fc:	bf00      	nop
`)
	prog, err := parseObjdump(dis)
	if err != nil {
		t.Fatal(err)
	}
	line := func(pc string) string { return "Trace 0: 0x7f00 [00800400/00000" + pc + "/00000110/ff000201] f\n" }
	trace := "unrelated log line\n" + line("1f0") + line("100") + line("1f4") + line("1f6") + line("1f8") + line("300") + line("1fc")
	segs, err := countTrace(strings.NewReader(trace), prog, 0x100, 0x300)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 1 || segs[0].instr != 4 || segs[0].cycles != 9 {
		t.Fatalf("segments %+v, want one of 4 instructions and 9 cycles", segs)
	}
	for _, bad := range []string{
		line("100") + line("100"),          // begin twice
		line("300"),                        // end outside
		line("100") + line("1f4"),          // ends inside
		line("100") + line("200") + "x\n",  // unknown address inside
		"Trace 0: 0x7f00 [garbage] f\n",    // no pc
		line("100") + "Trace 0: [0/zz/]\n", // bad pc
	} {
		if _, err := countTrace(strings.NewReader(bad), prog, 0x100, 0x300); !errors.Is(err, ErrTrace) {
			t.Errorf("countTrace(%q) = %v, want ErrTrace", bad, err)
		}
	}
}
