package mcu

import (
	"fmt"
	"sort"
	"strings"
)

// opKey names one measured operation of a cipher.
type opKey struct {
	op      string
	variant int
}

// opCount is one operation's corrected count.
type opCount struct {
	cycles int64
	instr  int64 // executed instructions (Cortex-M3), else 0
	stack  int
}

// cipherRun is what one firmware gave.
type cipherRun struct {
	cipher      string
	ops         map[opKey]opCount
	flash, sram int // the cipher's objects: flash, .data/.bss
	passed      int
	total       int
	notes       []string
}

// ctExempt are the operations whose two variants may differ: decryption
// with a valid and with a wrong tag, whose verdict is public.
var ctExempt = map[string]bool{"dec128": true}

// result turns a cipher's counts into its CipherResult. Two variants of an
// operation that differ are an ErrMeasure (a secret changed the timing).
func (cr *cipherRun) result() (CipherResult, error) {
	res := CipherResult{Cipher: cr.cipher, KATPassed: cr.passed, KATTotal: cr.total, FlashBytes: cr.flash}
	var missing []string
	get := func(op string) int64 {
		v, ok := cr.ops[opKey{op, 0}]
		if !ok {
			missing = append(missing, op)
		}
		return v.cycles
	}
	res.SetupCycles = get("setup")
	res.PermCycles = get("perm")
	enc0, enc1024 := get("enc0"), get("enc1024")
	res.CyclesPerByte = float64(enc1024-enc0) / 1024
	res.KDFCycles = get("kdf")
	res.MICTalkCycles = get("mic4")
	res.MICFrameCycles = get("mic")
	res.AE128AD0Cycles = get("ae128ad0")
	res.AE128AD16Cycles = get("ae128ad16")
	dec0, dec1 := get("dec128"), cr.ops[opKey{"dec128", 1}].cycles
	if cr.cipher == "ace" {
		res.HashCycles = get("hash128")
	}
	if len(missing) > 0 {
		return res, fmt.Errorf("%w: %s: no measurement of %s", ErrMeasure, cr.cipher, strings.Join(missing, ", "))
	}
	var keys []opKey
	for k := range cr.ops {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].op != keys[j].op {
			return keys[i].op < keys[j].op
		}
		return keys[i].variant < keys[j].variant
	})
	deepest := ""
	for _, k := range keys {
		v := cr.ops[k]
		if v.stack > res.StackBytes {
			res.StackBytes, deepest = v.stack, k.op
		}
		if k.variant == 1 && !ctExempt[k.op] {
			if w := cr.ops[opKey{k.op, 0}]; w.cycles != v.cycles || w.instr != v.instr {
				return res, fmt.Errorf("%w: %s %s: %d cycles on one input, %d on another: not constant time", ErrMeasure, cr.cipher, k.op, w.cycles, v.cycles)
			}
		}
	}
	res.SRAMBytes = cr.sram + res.StackBytes
	res.Notes = append(res.Notes, cr.notes...)
	res.Notes = append(res.Notes,
		fmt.Sprintf("cycles/byte = (E(1024) - E(0))/1024 for AE encryption without AD (E(1024) = %d, E(0) = %d; E(1024)/1024 = %.1f)", enc1024, enc0, float64(enc1024)/1024),
		fmt.Sprintf("the same counts on a second key, nonce and data for every operation (constant time); decryption of 128 B with 16 B AD: %d cycles with the right tag, %d with a wrong one (the verdict is public)", dec0, dec1),
		fmt.Sprintf("SRAM = %d B .data/.bss of the cipher's objects + %d B deepest stack below the call (%s; painted; the caller's buffers not counted)", cr.sram, res.StackBytes, deepest))
	if v, ok := cr.ops[opKey{"permr", 0}]; ok {
		what := map[string]string{"spix": "sLiSCP-light-256: 18 steps; the 9 steps between data blocks", "ascon": "Ascon-p[12]; Ascon-p[8] between data blocks"}[cr.cipher]
		res.Notes = append(res.Notes, fmt.Sprintf("perm = %s: %d cycles", what, v.cycles))
	}
	if cr.ops[opKey{"perm", 0}].instr > 0 {
		var parts []string
		for _, op := range []string{"perm", "setup", "kdf", "mic4", "mic", "ae128ad0", "ae128ad16", "enc1024", "hash128"} {
			if v, ok := cr.ops[opKey{op, 0}]; ok {
				parts = append(parts, fmt.Sprintf("%s %d", op, v.instr))
			}
		}
		res.Notes = append(res.Notes, "executed instructions: "+strings.Join(parts, ", "))
	}
	return res, nil
}

// measurement assembles the platform's result in the order of wifi/lwc.
func measurement(platform, model, toolchain, simulator string, runs map[string]*cipherRun) (*Measurement, error) {
	m := &Measurement{Platform: platform, ClockHz: ClockHz, CycleModel: model, Toolchain: toolchain, Simulator: simulator}
	var kat []string
	for _, c := range cipherOrder {
		cr := runs[c]
		if cr == nil {
			return nil, fmt.Errorf("%w: %s: no result", ErrMeasure, c)
		}
		res, err := cr.result()
		if err != nil {
			return nil, err
		}
		if res.KATPassed != res.KATTotal || res.KATTotal == 0 {
			kat = append(kat, fmt.Sprintf("%s %d/%d", c, res.KATPassed, res.KATTotal))
		}
		m.Ciphers = append(m.Ciphers, res)
	}
	if len(kat) > 0 {
		return m, fmt.Errorf("%w on %s: %s", ErrKAT, platform, strings.Join(kat, ", "))
	}
	return m, nil
}

// katNote says which files a cipher's KATs came from.
func katNote(cipher string, short bool) string {
	s := fmt.Sprintf("KATs: %s", katFiles[cipher])
	if cipher == "ace" {
		s += " and " + hashFile + " (ACE-H-256)"
	}
	if short {
		s += "; short run: the records with every message and AD length in {0,1,7,8,9,15,16,17,31,32}"
	}
	return s
}
