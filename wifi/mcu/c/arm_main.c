/*
 * arm_main.c: the runner on a Cortex-M3 (QEMU's lm3s6965evb: 256 KiB
 * flash, 64 KiB SRAM), with its reset code. Output and exit go through
 * semihosting. One firmware per cipher (MCU_ID, MCU_HAVE_<cipher>);
 * MCU_KAT=1 runs the KATs (MCU_SHORT=1: the subset), MCU_BENCH=1 the
 * measurements.
 *
 * QEMU does not model cycles: the measurements come from an executed-
 * instruction trace (QEMU -singlestep -d exec,nochain), counted by the Go
 * side between the entries of plat_begin and plat_end, whose addresses it
 * reads from this ELF; plat_end returns 0 here.
 */
#include <stdint.h>
#include <string.h>

#include "runner.h"

#ifndef MCU_SHORT
#define MCU_SHORT 0
#endif

/* Semihosting (ARM DUI 0471): r0 = operation, r1 = argument, BKPT 0xab. */
static int semihost(int op, const void *arg) {
  register int r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUNTIME_ERROR 0x20023

static char line[128];
static uint8_t line_len;

void plat_putc(char c) {
  line[line_len++] = c;
  if (c == '\n' || line_len == sizeof line - 1) {
    line[line_len] = 0;
    semihost(SYS_WRITE0, line);
    line_len = 0;
  }
}

static void plat_exit(int ok) {
  semihost(SYS_EXIT, (const void *)(uintptr_t)(ok ? ADP_STOPPED_APPLICATION_EXIT
                                                  : ADP_STOPPED_RUNTIME_ERROR));
  for (;;)
    ;
}

/* The markers of the trace: not inlined, nothing inside. */
__attribute__((noinline)) void plat_begin(void) { __asm__ volatile(""); }

__attribute__((noinline)) uint32_t plat_end(uint16_t *isr) {
  __asm__ volatile("");
  *isr = 0;
  return 0;
}

#define PAINT 0xc5c5c5c5u
#define PAINT_DEPTH 4096 /* bytes below the painting point */
static uint32_t *paint_top;

static inline uint32_t *stack_pointer(void) {
  uint32_t *sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

void plat_stack_paint(void) {
  uint32_t *p;
  paint_top = stack_pointer();
  for (p = paint_top - PAINT_DEPTH / 4; p < paint_top; p++) /* SP: last used */
    *p = PAINT;
}

uint16_t plat_stack_used(void) {
  uint32_t *p = paint_top - PAINT_DEPTH / 4;
  while (p < paint_top && *p == PAINT)
    p++;
  return (uint16_t)((paint_top - p) * 4);
}

int main(void) {
  static uint8_t buf[1040];
  uint16_t failures = 0;
  out_str("info platform cortex-m3\ninfo short ");
  out_u32(MCU_SHORT);
  plat_putc('\n');
#if MCU_KAT
  failures += kat_aead(MCU_ID, MCU_SHORT);
#ifdef MCU_HAVE_ACE
  kat_hash(MCU_SHORT, buf);
#endif
#endif
#if MCU_BENCH
  bench(MCU_ID, buf);
#endif
  (void)buf;
  out_str("end ");
  out_u32(failures);
  plat_putc('\n');
  plat_exit(failures == 0);
  return 0;
}

/* Reset: copy .data, clear .bss, run main. */
extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;

void reset_handler(void) {
  uint32_t *src = &_sidata, *dst;
  for (dst = &_sdata; dst < &_edata;)
    *dst++ = *src++;
  for (dst = &_sbss; dst < &_ebss;)
    *dst++ = 0;
  main();
  plat_exit(0);
}

static void fault_handler(void) {
  out_str("\n# fault\n");
  plat_exit(0);
}

__attribute__((section(".vectors"), used)) static void *const vectors[16] = {
    &_estack,      (void *)reset_handler, (void *)fault_handler,
    (void *)fault_handler, (void *)fault_handler, (void *)fault_handler,
    (void *)fault_handler,
};
