package mcu

import (
	"bytes"
	"context"
	"debug/elf"
	"embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

//go:embed c/*.c c/*.h c/*.ld
var sources embed.FS

// writeSources copies the C sources into dir.
func writeSources(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ents, err := sources.ReadDir("c")
	if err != nil {
		return err
	}
	for _, e := range ents {
		b, err := sources.ReadFile("c/" + e.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runner holds one Run.
type runner struct {
	ctx  context.Context
	cfg  Config
	log  io.Writer
	dir  string // work directory
	src  string // the C sources
	kats *kats
	mu   sync.Mutex // guards log
}

func (r *runner) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.log, format+"\n", args...)
}

// need checks that the programs exist.
func need(progs ...string) error {
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%w: %s not found (scripts/wifi-mcu-deps.sh installs it)", ErrToolchain, p)
		}
	}
	return nil
}

// run runs a command in dir and returns its standard output; a failure
// carries the standard error.
func (r *runner) run(dir string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(r.ctx, name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%w: %s %s: %v\n%s", ErrMeasure, name, strings.Join(args, " "), err, tail(errb.Bytes(), 2000))
	}
	return out.Bytes(), nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// version returns the first line of `prog --version`.
func (r *runner) version(prog string) string {
	out, err := exec.CommandContext(r.ctx, prog, "--version").Output()
	if err != nil {
		return prog
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

// cipherSources are the C files of each cipher, whose objects give its
// flash and static SRAM.
var cipherSources = map[string][]string{
	"ace":   {"ace.c", "ace_hash.c"},
	"spix":  {"spix.c"},
	"wage":  {"wage.c"},
	"ascon": {"ascon.c"},
}

// runnerSources are the other C files of a firmware.
var runnerSources = []string{"shapes.c", "kat.c", "bench.c"}

// cipherDefines returns the preprocessor flags of cipher's firmware.
func cipherDefines(cipher string) []string {
	up := strings.ToUpper(cipher)
	return []string{"-DMCU_HAVE_" + up, "-DMCU_ID=MCU_" + up}
}

// compileObjects compiles files (in r.src) to objects in out with cc and
// flags, and returns the object paths.
func (r *runner) compileObjects(cc string, flags []string, out string, files []string) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var objs []string
	for _, f := range files {
		o := filepath.Join(out, strings.TrimSuffix(f, ".c")+".o")
		args := append(append([]string{}, flags...), "-c", "-o", o, filepath.Join(r.src, f))
		if _, err := r.run(out, cc, args...); err != nil {
			return nil, err
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// objectSizes adds up the allocated sections of ELF objects: flash is
// everything with contents (code, constants, initial values of .data),
// sram the writable sections (.data, .bss) and, on AVR, .rodata too,
// which avr-libc's linker script places in SRAM.
func objectSizes(avr bool, objs ...string) (flash, sram int, err error) {
	for _, p := range objs {
		f, err := elf.Open(p)
		if err != nil {
			return 0, 0, fmt.Errorf("%w: %v", ErrMeasure, err)
		}
		for _, s := range f.Sections {
			if s.Flags&elf.SHF_ALLOC == 0 {
				continue
			}
			if s.Type != elf.SHT_NOBITS {
				flash += int(s.Size)
			}
			if s.Flags&elf.SHF_WRITE != 0 || (avr && strings.HasPrefix(s.Name, ".rodata")) {
				sram += int(s.Size)
			}
		}
		f.Close()
	}
	return flash, sram, nil
}

// symbol returns the address of a function in an ELF file.
func symbol(path, name string) (uint64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrMeasure, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrMeasure, path, err)
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value, nil
		}
	}
	return 0, fmt.Errorf("%w: %s: no symbol %s", ErrMeasure, path, name)
}

// parallel runs f for every cipher, at most NumCPU at a time, and returns
// the first error.
func parallel(ciphers []string, f func(cipher string) error) error {
	sem := make(chan struct{}, runtime.NumCPU())
	errs := make([]error, len(ciphers))
	var wg sync.WaitGroup
	for i, c := range ciphers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = f(c)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
