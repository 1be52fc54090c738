// Package mcu measures the lightweight ciphers of wifi/lwc — ACE, SPIX,
// WAGE and Ascon — and the talk's sponge KDF and MIC on the
// microcontrollers of "Implementation of three LWC schemes in the WiFi
// 4-way handshake" (Yi, Gong, Mandal, NIST LWC workshop 2019): an 8-bit
// ATmega128 and a 32-bit Cortex-M3, both at 16 MHz, in simulation.
//
// The ciphers are portable C99 in c/ (embedded into this package), ported
// from kexlab's Go reference packages wifi/lwc/{ace,spix,wage,ascon}:
// ACE-AE-128 and ACE-H-256, SPIX-AE-128, WAGE-AE-128 and Ascon-AEAD128
// (NIST SP 800-232), with the NIST LWC API, constant time (no branch or
// memory index depends on a secret), and the KDF and MIC exactly as
// wifi/lwc maps the handshake onto them. [Run] builds one firmware per
// cipher, runs it in a simulator, checks every known answer the firmware
// produced against the NIST KAT files of ../shared/vectors, and returns
// the measurements.
//
// # Platforms
//
// atmega128: avr-gcc (Debian's gcc-avr and avr-libc) and simavr's
// cycle-accurate ATmega128 core, driven through libsimavr by a small host
// program (c/simavr_run.c) that copies USART0 to stdout. Cycles are exact:
// Timer1 runs at the CPU clock with its overflow interrupt counting the
// upper bits; the call overhead (an empty measurement) and the interrupt's
// own cycles (calibrated with two busy-waits of known length) are removed.
//
// cortex-m3: arm-none-eabi-gcc and QEMU's lm3s6965evb (a Cortex-M3) with
// semihosting. QEMU is not cycle-accurate, so each operation's exact
// executed-instruction trace is recorded (one instruction per translation
// block, -d exec,nochain), and cycles are modelled from it with the
// Cortex-M3 instruction timings (see [CortexM3Model]).
//
// msp430: not measured. mspdebug (Debian) has an MSP430 simulator with
// a Timer_A, but Debian 12 has no MSP430 compiler (no gcc-msp430,
// binutils-msp430 or msp430-libc; only msp430mcu's headers), and the
// registries offer only ppci (PyPI), a pure-Python compiler with a partial
// C front end last released in 2020, whose code would not be comparable
// with the talk's; Run says so for "msp430".
//
// # What is measured
//
// Per cipher: the KATs (AEAD; ACE also ACE-H-256), flash (code and
// constants of the cipher's own object files), SRAM (their .data/.bss
// plus the deepest stack of any measured operation), and the cycles of the
// AE initialisation, one permutation, the encryption throughput, the KDF,
// the talk's MIC (32 octets of AD), the MIC over a 121-octet EAPOL frame,
// the AE encryption of 128 bytes with 0 and 16 bytes of AD, and for ACE
// the hash of 128 bytes. Every operation on secrets runs twice with other
// keys and data, and Run fails if the two counts differ (the C is meant to
// be constant time).
//
// The KAT data does not have to fit in the 4 KiB of SRAM: the firmware
// regenerates the genkat inputs (key, nonce, message and AD counting up,
// every message length 0..32 with every AD length 0..32), sends C||T and
// its own decryption verdict over the UART (semihosting on the
// Cortex-M3), and the host compares them with the files, after checking
// that the files' inputs are exactly that pattern. Stack depth comes from
// painting the free stack before an operation (on the ATmega128 in an
// untimed run, so that no timer interrupt lands in it) and finding the
// deepest overwritten byte after it.
package mcu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Errors, wrapped with the details.
var (
	// ErrToolchain: a compiler, library or simulator is missing (the
	// tests skip on it unless KEXLAB_REQUIRE_MCU=1).
	ErrToolchain = errors.New("mcu: toolchain or simulator missing")
	// ErrPlatform: the platform is not one of Platforms().
	ErrPlatform = errors.New("mcu: unsupported platform")
	// ErrKAT: a known-answer test failed or was not run.
	ErrKAT = errors.New("mcu: known-answer test failed")
	// ErrMeasure: a build, a simulation or a measurement went wrong.
	ErrMeasure = errors.New("mcu: measurement failed")
)

// Config says what Run measures.
type Config struct {
	Platform string // "atmega128" | "cortex-m3"
	// Short runs a KAT subset (every message and AD length on both sides
	// of a block edge: 100 of 1089 AEAD records, 16 of 1025 hashes), for
	// make test; the measurements are the same.
	Short bool
	// WorkDir holds the sources, objects and firmware; "" is a temporary
	// directory, removed afterwards.
	WorkDir string
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// Vectors is the shared vector directory (holding lwc/ and ascon/);
	// "" looks for ../shared/vectors beside the repository root above the
	// working directory.
	Vectors string
}

// Measurement is one platform's results.
type Measurement struct {
	Platform   string         `json:"platform"`
	ClockHz    float64        `json:"clock_hz"`    // 16e6
	CycleModel string         `json:"cycle_model"` // how cycles were obtained
	Toolchain  string         `json:"toolchain"`   // compiler, version, flags
	Simulator  string         `json:"simulator"`
	Ciphers    []CipherResult `json:"ciphers"`
}

// CipherResult is one cipher on one platform.
type CipherResult struct {
	Cipher     string `json:"cipher"` // the names of wifi/lwc.Ciphers()
	KATPassed  int    `json:"kat_passed"`
	KATTotal   int    `json:"kat_total"`
	FlashBytes int    `json:"flash_bytes"` // the cipher's code and constants
	SRAMBytes  int    `json:"sram_bytes"`  // its .data/.bss + StackBytes
	StackBytes int    `json:"stack_bytes"` // deepest stack of its operations
	// SetupCycles: AE initialisation, key and nonce loaded and the
	// initial permutation(s), before any AD or message.
	SetupCycles int64 `json:"setup_cycles"`
	// PermCycles: one permutation (SPIX: 18 steps; Ascon: p[12]).
	PermCycles int64 `json:"perm_cycles"`
	// CyclesPerByte: (E(1024) - E(0)) / 1024 for AE encryption of a
	// 1024-byte message without AD.
	CyclesPerByte   float64  `json:"cycles_per_byte"`
	KDFCycles       int64    `json:"kdf_cycles"`        // the talk's KDF
	MICTalkCycles   int64    `json:"mic_talk_cycles"`   // 4 × 64-bit AD blocks
	MICFrameCycles  int64    `json:"mic_frame_cycles"`  // 121-octet frame
	AE128AD0Cycles  int64    `json:"ae128_ad0_cycles"`  // 128-byte message
	AE128AD16Cycles int64    `json:"ae128_ad16_cycles"` // and 16 bytes of AD
	HashCycles      int64    `json:"hash_cycles"`       // ACE-H-256, 128 bytes
	Notes           []string `json:"notes,omitempty"`
}

// Platforms returns the platforms Run measures.
func Platforms() []string { return []string{"atmega128", "cortex-m3"} }

// ClockHz is the clock of both boards in the talk.
const ClockHz = 16e6

// Run builds the firmware for cfg.Platform, runs it in the simulator and
// returns the measurements. It fails if any KAT fails, if the toolchain is
// missing (ErrToolchain) or if a measurement is inconsistent.
func Run(ctx context.Context, cfg Config) (*Measurement, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	switch cfg.Platform {
	case "atmega128", "cortex-m3":
	case "msp430":
		return nil, fmt.Errorf("%w: msp430: Debian 12 has no MSP430 compiler (no gcc-msp430, binutils-msp430 or msp430-libc; mspdebug's simulator alone is there) and the registries offer only ppci, a partial C compiler in Python", ErrPlatform)
	default:
		return nil, fmt.Errorf("%w: %q (have %v)", ErrPlatform, cfg.Platform, Platforms())
	}
	vec, err := vectorsDir(cfg.Vectors)
	if err != nil {
		return nil, err
	}
	kats, err := loadKATs(vec)
	if err != nil {
		return nil, err
	}
	dir := cfg.WorkDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "kexlab-mcu-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	} else if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "src")
	if err := writeSources(src); err != nil {
		return nil, err
	}
	r := &runner{ctx: ctx, cfg: cfg, log: log, dir: dir, src: src, kats: kats}
	if cfg.Platform == "atmega128" {
		return r.avr()
	}
	return r.arm()
}

// vectorsDir returns dir, or ../shared/vectors beside the repository root
// (the directory with go.mod) above the working directory.
func vectorsDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			v := filepath.Join(d, "..", "shared", "vectors")
			if _, err := os.Stat(v); err != nil {
				return "", fmt.Errorf("%w: no vector directory %s", ErrKAT, v)
			}
			return v, nil
		}
		p := filepath.Dir(d)
		if p == d {
			return "", fmt.Errorf("%w: no go.mod above the working directory, so no ../shared/vectors (set Config.Vectors)", ErrKAT)
		}
		d = p
	}
}
