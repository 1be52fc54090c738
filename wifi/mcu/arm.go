package mcu

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Cortex-M3 build: arm-none-eabi-gcc -O2, newlib-nano for memcpy/memset.
var armFlags = []string{"-mcpu=cortex-m3", "-mthumb", "-O2", "-std=gnu99", "-Wall", "-Wextra", "-Werror",
	"-ffunction-sections", "-fdata-sections", "-ffreestanding"}

func (r *runner) arm() (*Measurement, error) {
	if err := need("arm-none-eabi-gcc", "arm-none-eabi-objdump", "qemu-system-arm"); err != nil {
		return nil, err
	}
	qv := r.version("qemu-system-arm")
	oneInsn := []string{"-singlestep"}
	if major, minor := qemuVersion(qv); major > 8 || (major == 8 && minor >= 1) {
		oneInsn = []string{"-accel", "tcg,one-insn-per-tb=on"}
	}
	short := 0
	if r.cfg.Short {
		short = 1
	}
	flags := append(append([]string{}, armFlags...), fmt.Sprintf("-DMCU_SHORT=%d", short))
	ld := []string{"-mcpu=cortex-m3", "-mthumb", "-nostartfiles", "--specs=nano.specs", "--specs=nosys.specs",
		"-Wl,--gc-sections", "-T", filepath.Join(r.src, "arm.ld")}
	runs := map[string]*cipherRun{}
	err := parallel(cipherOrder, func(c string) error {
		out := filepath.Join(r.dir, "arm", c)
		fl := append(append([]string{}, flags...), cipherDefines(c)...)
		objs, err := r.compileObjects("arm-none-eabi-gcc", fl, out, append(append([]string{}, cipherSources[c]...), runnerSources...))
		if err != nil {
			return err
		}
		var fws [2]string
		for i, mode := range []string{"kat", "bench"} {
			m, err := r.compileObjects("arm-none-eabi-gcc", append(fl, fmt.Sprintf("-DMCU_KAT=%d", 1-i), fmt.Sprintf("-DMCU_BENCH=%d", i)),
				filepath.Join(out, mode), []string{"arm_main.c"})
			if err != nil {
				return err
			}
			fws[i] = filepath.Join(out, c+"-"+mode+".elf")
			if _, err := r.run(out, "arm-none-eabi-gcc", append(append(append([]string{}, ld...), "-o", fws[i]), append(objs, m...)...)...); err != nil {
				return err
			}
		}
		r.logf("mcu: cortex-m3 %s: KATs on QEMU", c)
		stdout, err := r.run(out, "qemu-system-arm", append(qemuArgs(), "-kernel", fws[0])...)
		if err != nil {
			return fmt.Errorf("cortex-m3 %s: %w", c, err)
		}
		kat, err := Parse(bytes.NewReader(stdout))
		if err != nil {
			return fmt.Errorf("cortex-m3 %s: %w", c, err)
		}
		r.logf("mcu: cortex-m3 %s: measuring (instruction trace)", c)
		bench, segs, err := r.armTrace(out, fws[1], oneInsn)
		if err != nil {
			return fmt.Errorf("cortex-m3 %s: %w", c, err)
		}
		cr, err := r.armCipher(c, kat, bench, segs, objs[:len(cipherSources[c])])
		if err != nil {
			return err
		}
		r.mu.Lock()
		runs[c] = cr
		r.mu.Unlock()
		r.logf("mcu: cortex-m3 %s: %d/%d KATs", c, cr.passed, cr.total)
		return nil
	})
	if err != nil {
		return nil, err
	}
	tool := fmt.Sprintf("%s; %s; newlib-nano", r.version("arm-none-eabi-gcc"), strings.Join(armFlags, " "))
	sim := fmt.Sprintf("%s, machine lm3s6965evb (Cortex-M3), semihosting; %s -d exec,nochain for the instruction trace", qv, strings.Join(oneInsn, " "))
	return measurement("cortex-m3", CortexM3Model, tool, sim, runs)
}

func qemuArgs() []string {
	return []string{"-M", "lm3s6965evb", "-nographic", "-monitor", "none", "-serial", "none",
		"-chardev", "stdio,id=semi", "-semihosting-config", "enable=on,target=native,chardev=semi"}
}

var qemuVersionRE = regexp.MustCompile(`version (\d+)\.(\d+)`)

func qemuVersion(s string) (major, minor int) {
	m := qemuVersionRE.FindStringSubmatch(s)
	if m == nil {
		return 0, 0
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor
}

// armTrace runs the measuring firmware with QEMU's instruction trace piped
// to the cycle model, and returns its output and the counted segments.
func (r *runner) armTrace(dir, fw string, oneInsn []string) (*Output, []segment, error) {
	prog, err := r.disassemble(dir, fw)
	if err != nil {
		return nil, nil, err
	}
	begin, err := symbol(fw, "plat_begin")
	if err != nil {
		return nil, nil, err
	}
	end, err := symbol(fw, "plat_end")
	if err != nil {
		return nil, nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	defer pr.Close()
	args := append(append(qemuArgs(), oneInsn...), "-d", "exec,nochain", "-D", "/dev/fd/3", "-kernel", fw)
	cmd := exec.CommandContext(r.ctx, "qemu-system-arm", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.ExtraFiles = []*os.File{pw}
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, nil, fmt.Errorf("%w: qemu-system-arm: %v", ErrMeasure, err)
	}
	pw.Close()
	type result struct {
		segs []segment
		err  error
	}
	done := make(chan result, 1)
	go func() {
		segs, err := countTrace(pr, prog, uint32(begin&^1), uint32(end&^1))
		if err != nil {
			io.Copy(io.Discard, pr) // let QEMU finish
		}
		done <- result{segs, err}
	}()
	werr := cmd.Wait()
	res := <-done
	if werr != nil {
		return nil, nil, fmt.Errorf("%w: qemu-system-arm: %v\n%s", ErrMeasure, werr, tail(stderr.Bytes(), 1000))
	}
	if res.err != nil {
		return nil, nil, res.err
	}
	o, err := Parse(&stdout)
	if err != nil {
		return nil, nil, err
	}
	return o, res.segs, nil
}

// armCipher checks the KAT run and pairs the trace's segments with the
// measuring firmware's m lines, in order; the first is the empty
// measurement, whose count is removed from the others.
func (r *runner) armCipher(c string, kat, bench *Output, segs []segment, cipherObjs []string) (*cipherRun, error) {
	if !kat.Ended || !bench.Ended {
		return nil, fmt.Errorf("%w: cortex-m3 %s: a firmware did not finish", ErrMeasure, c)
	}
	cr := &cipherRun{cipher: c, ops: map[opKey]opCount{}, notes: []string{katNote(c, r.cfg.Short)}}
	var fails []string
	cr.passed, cr.total, fails = r.kats.check(kat, c, r.cfg.Short)
	if len(fails) > 0 || kat.Failures > 0 {
		sort.Strings(fails)
		return nil, fmt.Errorf("%w: cortex-m3 %s: %d device-side failures; %s", ErrKAT, c, kat.Failures, strings.Join(first(fails, 5), "; "))
	}
	if len(segs) != len(bench.Measures) || len(segs) == 0 || bench.Measures[0].Op != "empty" {
		return nil, fmt.Errorf("%w: cortex-m3 %s: %d trace segments for %d measurements", ErrMeasure, c, len(segs), len(bench.Measures))
	}
	e := segs[0]
	for i, m := range bench.Measures[1:] {
		if m.Cipher != c {
			continue
		}
		s := segs[i+1]
		key := opKey{m.Op, m.Variant}
		if _, dup := cr.ops[key]; dup {
			return nil, fmt.Errorf("%w: cortex-m3 %s: %s measured twice", ErrMeasure, c, m.Op)
		}
		cr.ops[key] = opCount{cycles: s.cycles - e.cycles, instr: s.instr - e.instr, stack: m.Stack}
		if s.approx > 0 {
			cr.notes = append(cr.notes, fmt.Sprintf("%s: %d divisions or long multiplications, timed at their mid-range", m.Op, s.approx))
		}
	}
	var err error
	if cr.flash, cr.sram, err = objectSizes(false, cipherObjs...); err != nil {
		return nil, err
	}
	return cr, nil
}
