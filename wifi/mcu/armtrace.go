package mcu

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// CortexM3Model is how cortex-m3 cycles are obtained: QEMU gives the exact
// sequence of executed instructions; each is timed with the Cortex-M3
// Technical Reference Manual (r2p1, Table 18-1 "Cortex-M3 instruction
// timings"), the branch outcome read from the trace.
const CortexM3Model = "modelled from the exact executed-instruction trace (QEMU, one instruction per block) with the Cortex-M3 TRM r2p1 Table 18-1 timings, " +
	"zero flash wait states at 16 MHz and pipeline refill P = 2: ALU, MUL, IT and not-taken branches 1; taken B/BL/BX/CBZ 1+P = 3; TBB/TBH 2+P; " +
	"LDR/STR (byte, half, word) 2, or 1 right after another single load/store (pipelined); LDRD/STRD 3; LDM/STM/PUSH/POP 1+N (+P when loading PC); " +
	"MLA/MLS 2; long multiply 4 and divide 7 (mid-range, counted in the notes); an instruction writing PC +P; IT-skipped instructions at full cost"

const armP = 2 // pipeline refill cycles

type insnClass uint8

const (
	clALU insnClass = iota
	clBranch
	clTable // TBB, TBH
	clLoad  // single LDR/STR of any width
	clStore
	clDual  // LDRD, STRD
	clMulti // LDM, STM, PUSH, POP
	clMLA
	clLongMul
	clDiv
)

// insn is one instruction of the program, as objdump disassembles it.
type insn struct {
	size  uint32
	class insnClass
	regs  int // registers moved by clMulti
}

// program maps a Thumb address to its instruction.
type program map[uint32]insn

var objdumpLine = regexp.MustCompile(`^\s*([0-9a-f]+):\t([0-9a-f]{4}(?: [0-9a-f]{4})?)\s*\t(\S+)\s*(.*)$`)

// disassemble runs objdump on fw and classifies its instructions.
func (r *runner) disassemble(dir, fw string) (program, error) {
	out, err := r.run(dir, "arm-none-eabi-objdump", "-d", fw)
	if err != nil {
		return nil, err
	}
	return parseObjdump(out)
}

func parseObjdump(out []byte) (program, error) {
	p := program{}
	for _, line := range strings.Split(string(out), "\n") {
		m := objdumpLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		addr, err := strconv.ParseUint(m[1], 16, 32)
		if err != nil {
			return nil, err
		}
		size := uint32(2)
		if strings.Contains(m[2], " ") {
			size = 4
		}
		class, regs := classify(m[3], m[4])
		p[uint32(addr)] = insn{size: size, class: class, regs: regs}
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("%w: objdump gave no instructions", ErrMeasure)
	}
	return p, nil
}

var condCodes = []string{"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"}

var classes = map[string]insnClass{
	"b": clBranch, "bl": clBranch, "blx": clBranch, "bx": clBranch, "cbz": clBranch, "cbnz": clBranch,
	"tbb": clTable, "tbh": clTable,
	"ldr": clLoad, "ldrb": clLoad, "ldrh": clLoad, "ldrsb": clLoad, "ldrsh": clLoad, "ldrex": clLoad,
	"ldrt": clLoad, "ldrbt": clLoad, "ldrht": clLoad, "ldrsbt": clLoad, "ldrsht": clLoad,
	"str": clStore, "strb": clStore, "strh": clStore, "strt": clStore, "strbt": clStore, "strht": clStore,
	"ldrd": clDual, "strd": clDual,
	"ldm": clMulti, "ldmia": clMulti, "ldmfd": clMulti, "ldmdb": clMulti, "ldmea": clMulti,
	"stm": clMulti, "stmia": clMulti, "stmea": clMulti, "stmdb": clMulti, "stmfd": clMulti,
	"push": clMulti, "pop": clMulti,
	"mla": clMLA, "mls": clMLA,
	"umull": clLongMul, "smull": clLongMul, "umlal": clLongMul, "smlal": clLongMul,
	"udiv": clDiv, "sdiv": clDiv,
}

// classify returns the timing class of a mnemonic (with its .w/.n width
// and any IT condition suffix) and, for LDM/STM/PUSH/POP, the number of
// registers in the list.
func classify(mnemonic, operands string) (insnClass, int) {
	m, _, _ := strings.Cut(strings.ToLower(mnemonic), ".")
	class, ok := classes[m]
	if !ok {
		for _, cc := range condCodes {
			if base, found := strings.CutSuffix(m, cc); found {
				if c, ok2 := classes[base]; ok2 { // "bne", "ldrne", "popeq"
					class, ok = c, true
					break
				}
			}
		}
	}
	if !ok {
		return clALU, 0
	}
	if class != clMulti {
		return class, 0
	}
	list := operands
	if i := strings.IndexByte(list, '{'); i >= 0 {
		list = list[i+1:]
	}
	list, _, _ = strings.Cut(list, "}")
	n := 0
	for _, r := range strings.Split(list, ",") {
		r = strings.TrimSpace(r)
		if lo, hi, isRange := strings.Cut(r, "-"); isRange {
			a, err1 := strconv.Atoi(strings.TrimPrefix(lo, "r"))
			b, err2 := strconv.Atoi(strings.TrimPrefix(hi, "r"))
			if err1 == nil && err2 == nil && b >= a {
				n += b - a + 1
				continue
			}
		}
		if r != "" {
			n++
		}
	}
	return class, n
}

// cost returns the cycles of an instruction given whether control went
// elsewhere than the next instruction and whether the instruction before
// it was a single load or store.
func (in insn) cost(jumped, afterLS bool) (cycles int64, approx bool) {
	var c int64
	switch in.class {
	case clBranch:
		if jumped {
			return 1 + armP, false
		}
		return 1, false
	case clTable:
		return 2 + armP, false
	case clLoad, clStore:
		c = 2
		if afterLS {
			c = 1
		}
	case clDual:
		c = 3
	case clMulti:
		c = 1 + int64(in.regs)
	case clMLA:
		c = 2
	case clLongMul:
		c, approx = 4, true
	case clDiv:
		c, approx = 7, true
	default:
		c = 1
	}
	if jumped { // PC written by a load, POP or data-processing instruction
		c += armP
	}
	return c, approx
}

// segment is the count between one entry of plat_begin and the next entry
// of plat_end.
type segment struct {
	instr, cycles int64
	approx        int
}

// ErrTrace is wrapped by countTrace's errors.
var ErrTrace = errors.New("mcu: bad instruction trace")

// countTrace reads QEMU's -d exec log ("Trace 0: 0x... [cs_base/pc/flags/
// cflags] symbol", one line per executed instruction with one instruction
// per block) and times the instructions of every segment from the entry
// of plat_begin (begin) to the entry of plat_end (end), which belong to
// it: begin's own body and the call of end, removed later with the empty
// measurement.
func countTrace(r io.Reader, prog program, begin, end uint32) ([]segment, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var segs []segment
	var cur *segment
	var prev insn
	var prevPC uint32
	havePrev, prevLS := false, false
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, fmt.Errorf("%w: line longer than 1 MiB", ErrTrace)
		}
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return nil, err
		}
		if !bytes.HasPrefix(line, []byte("Trace ")) {
			continue
		}
		pc, ok := tracePC(line)
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrTrace, bytes.TrimSpace(line))
		}
		in, known := prog[pc]
		if havePrev {
			if cur != nil {
				c, approx := prev.cost(pc != prevPC+prev.size, prevLS)
				cur.instr++
				cur.cycles += c
				if approx {
					cur.approx++
				}
			}
			prevLS = prev.class == clLoad || prev.class == clStore
		}
		switch pc {
		case begin:
			if cur != nil {
				return nil, fmt.Errorf("%w: plat_begin entered twice without plat_end", ErrTrace)
			}
			if len(segs) >= maxMeasures {
				return nil, fmt.Errorf("%w: more than %d measurements", ErrTrace, maxMeasures)
			}
			segs = append(segs, segment{})
			cur = &segs[len(segs)-1]
		case end:
			if cur == nil {
				return nil, fmt.Errorf("%w: plat_end entered outside a measurement", ErrTrace)
			}
			cur = nil
		}
		if cur != nil && !known {
			return nil, fmt.Errorf("%w: executed address %#x is not in the disassembly", ErrTrace, pc)
		}
		prev, prevPC, havePrev = in, pc, true
		if err != nil {
			break
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%w: the trace ends inside a measurement", ErrTrace)
	}
	return segs, nil
}

// tracePC returns the guest PC of a trace line: the second field inside
// the brackets.
func tracePC(line []byte) (uint32, bool) {
	i := bytes.IndexByte(line, '[')
	if i < 0 {
		return 0, false
	}
	rest := line[i+1:]
	j := bytes.IndexByte(rest, '/')
	if j < 0 {
		return 0, false
	}
	rest = rest[j+1:]
	k := bytes.IndexByte(rest, '/')
	if k <= 0 || k > 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(rest[:k]), 16, 32)
	if err != nil {
		return 0, false
	}
	return uint32(v), true
}
