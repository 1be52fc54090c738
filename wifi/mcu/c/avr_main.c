/*
 * avr_main.c: the runner on an ATmega128 at 16 MHz (simavr). One firmware
 * per cipher (MCU_ID, MCU_HAVE_<cipher>); MCU_SHORT=1 runs the KAT
 * subset. Output on USART0 at 2 Mbit/s (U2X, UBRR = 0).
 *
 * Cycles: Timer1 runs at the CPU clock (prescaler 1) from plat_begin to
 * plat_end; its overflow interrupt counts the upper 16 bits. The count
 * includes the call overhead of plat_begin/plat_end (removed with the
 * "empty" measurement) and the overflow interrupts' own cycles (removed
 * with the per-interrupt cost that the two delay measurements, of known
 * length, calibrate; the Go side does both corrections).
 *
 * Stack: from the end of .bss up to the stack pointer, memory is painted
 * with 0xc5 before an operation; afterwards the lowest overwritten byte
 * gives the depth the operation reached below the painting point.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "runner.h"

#ifndef MCU_SHORT
#define MCU_SHORT 0
#endif

void plat_putc(char c) {
  while (!(UCSR0A & _BV(UDRE0)))
    ;
  UDR0 = (uint8_t)c;
}

static volatile uint16_t t1_ovf;

ISR(TIMER1_OVF_vect) { t1_ovf++; }

__attribute__((noinline)) void plat_begin(void) {
  TCCR1B = 0;
  TCNT1 = 0;
  t1_ovf = 0;
  TIFR = _BV(TOV1);
  TCCR1B = _BV(CS10); /* clk/1 */
}

__attribute__((noinline)) uint32_t plat_end(uint16_t *isr) {
  uint16_t lo, n;
  cli();
  lo = TCNT1; /* read while running: simavr updates TCNT1 only then */
  TCCR1B = 0;
  n = *isr = t1_ovf;
  if ((TIFR & _BV(TOV1)) && lo < 0x8000)
    n++; /* an overflow just before the read, its interrupt not served */
  TIFR = _BV(TOV1);
  sei();
  return (uint32_t)n << 16 | lo;
}

extern uint8_t __heap_start; /* the end of .data and .bss */
static uint8_t *paint_top;

#define PAINT 0xc5

/* SP is the next free byte: the painted region ends just below the return
 * address that the measured call pushes at the caller's stack pointer. No
 * interrupt can come meanwhile (Timer1 is stopped). */
void plat_stack_paint(void) {
  uint8_t *p = &__heap_start;
  paint_top = (uint8_t *)SP + 1;
  while (p < paint_top)
    *p++ = PAINT;
}

uint16_t plat_stack_used(void) {
  uint8_t *p = &__heap_start;
  while (p < paint_top && *p == PAINT)
    p++;
  return (uint16_t)(paint_top - p);
}

int main(void) {
  static uint8_t buf[1040];
  uint16_t failures = 0;
  UCSR0A = _BV(U2X0);
  UBRR0H = 0;
  UBRR0L = 0;
  UCSR0B = _BV(TXEN0);
  TIMSK |= _BV(TOIE1);
  sei();
  out_str("info platform atmega128\ninfo short ");
  out_u32(MCU_SHORT);
  plat_putc('\n');
  /* Timer calibration: delays of exactly 2^20 and 3*2^16 + 777 cycles. */
  MEASURE("-", "delay", 0, __builtin_avr_delay_cycles(1048576UL));
  MEASURE("-", "delay", 1, __builtin_avr_delay_cycles(197385UL));
  failures += kat_aead(MCU_ID, MCU_SHORT);
#ifdef MCU_HAVE_ACE
  kat_hash(MCU_SHORT, buf);
#endif
  bench(MCU_ID, buf);
  UCSR0A |= _BV(TXC0);
  out_str("end ");
  out_u32(failures);
  plat_putc('\n');
  while (!(UCSR0A & _BV(TXC0)))
    ;
  cli();
  sleep_cpu(); /* simavr ends the run: asleep with interrupts off */
  for (;;)
    ;
}
