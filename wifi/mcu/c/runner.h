/*
 * runner.h: the KAT and measurement runner shared by every target (host,
 * ATmega128 under simavr, Cortex-M3 under QEMU), and what a target
 * provides to it.
 *
 * Output is line-oriented text (parsed by the Go package wifi/mcu):
 *   # free text
 *   info <key> <value>
 *   kat <cipher> <count> <hex of C||T> <ok>   ok = 1: decryption gave the
 *                                             message back and rejected the
 *                                             tampered inputs
 *   hash <count> <hex of the digest>
 *   m <cipher> <op> <variant> <raw> <isr> <stack>   one measurement: the
 *                                             raw count, the timer interrupts
 *                                             taken during it, the stack
 *   end <failures>
 * The KAT inputs are regenerated here with the NIST genkat pattern: the
 * key 00 01 .. 0f; nonce, message and AD counting up from 00 (LWC round-2
 * files) or from 10, 20 and 30 (the Ascon files); every message length
 * 0..32 with every AD length 0..32. The Go side checks that the KAT files
 * hold exactly that pattern and compares the outputs with them.
 */
#ifndef KEXLAB_LWC_RUNNER_H
#define KEXLAB_LWC_RUNNER_H

#include "lwc.h"

/* What a target provides. */
void plat_putc(char c);
/* plat_begin/plat_end bracket one measured operation; plat_end returns the
 * raw count (AVR: Timer1 cycles with overflows; 0 where a trace counts)
 * and sets *isr to the number of timer interrupts served meanwhile. */
void plat_begin(void);
uint32_t plat_end(uint16_t *isr);
/* plat_stack_paint fills the free stack below the caller with a pattern;
 * plat_stack_used returns how deep below that point it was overwritten
 * since (0 where not measured). */
void plat_stack_paint(void);
uint16_t plat_stack_used(void);

/* The ciphers a runner knows: mcu_cipher_names[id] is the name of cipher
 * id, mcu_cipher(id) the cipher as the handshake uses it, or 0 where the
 * firmware is built without it (MCU_HAVE_*). */
enum { MCU_ACE, MCU_SPIX, MCU_WAGE, MCU_ASCON };
extern const char *const mcu_cipher_names[4];
const lwc_cipher *mcu_cipher(uint8_t id);

void out_str(const char *s);
void out_hex(const uint8_t *b, size_t n);
void out_u32(uint32_t v);

/* kat_aead prints the KAT outputs of cipher id; short_mode runs the
 * message and AD lengths 0 1 7 8 9 15 16 17 31 32 only, and checks only
 * the tampered tag. Returns the number of failed decryption checks. */
uint16_t kat_aead(uint8_t id, uint8_t short_mode);
/* kat_hash prints the ACE-H-256 KAT digests (every length 0..1024, or a
 * subset); buf must hold 1024 bytes. */
void kat_hash(uint8_t short_mode, uint8_t *buf);
/* bench runs the measurements of cipher id; buf must hold 1040 bytes. */
void bench(uint8_t id, uint8_t *buf);

/* MEASURE runs stmt between plat_begin and plat_end with the stack painted
 * before, and prints the m line. On AVR the stack is measured in a first
 * run of stmt with Timer1 stopped, so that no overflow interrupt's frame
 * lands in the figure; the second run is timed. */
void bench_report(const char *cipher, const char *op, uint8_t variant,
                  uint32_t raw, uint16_t isr, uint16_t stack);
#if defined(__AVR__)
#define MEASURE(cipher, op, variant, stmt)                                     \
  do {                                                                         \
    uint32_t raw_;                                                             \
    uint16_t isr_, stack_;                                                     \
    plat_stack_paint();                                                        \
    stmt;                                                                      \
    stack_ = plat_stack_used();                                                \
    plat_begin();                                                              \
    stmt;                                                                      \
    raw_ = plat_end(&isr_);                                                    \
    bench_report(cipher, op, variant, raw_, isr_, stack_);                     \
  } while (0)
#else
#define MEASURE(cipher, op, variant, stmt)                                     \
  do {                                                                         \
    uint32_t raw_;                                                             \
    uint16_t isr_;                                                             \
    plat_stack_paint();                                                        \
    plat_begin();                                                              \
    stmt;                                                                      \
    raw_ = plat_end(&isr_);                                                    \
    bench_report(cipher, op, variant, raw_, isr_, plat_stack_used());          \
  } while (0)
#endif

#endif
