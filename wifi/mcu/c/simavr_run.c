/*
 * simavr_run.c: runs an AVR firmware on simavr's cycle-accurate core and
 * copies what the firmware sends on USART0 to stdout. It stops when the
 * firmware sleeps with interrupts off (cpu_Done), crashes, or passes the
 * cycle limit.
 *   simavr_run <mcu> <hz> <cycle-limit> <firmware.elf>
 * The last line it writes is "# simavr cycles <n> state <s>".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

/* simavr's own messages go to stderr, so that stdout is the UART alone. */
static void to_stderr(struct avr_t *avr, const int level, const char *format,
                      va_list ap) {
  (void)avr;
  if (level <= LOG_WARNING)
    vfprintf(stderr, format, ap);
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param) {
  (void)irq;
  (void)param;
  putchar((int)(value & 0xff));
}

int main(int argc, char **argv) {
  elf_firmware_t fw;
  avr_t *avr;
  uint32_t flags = 0;
  unsigned long long limit;
  int state = cpu_Running;
  if (argc != 5) {
    fprintf(stderr, "usage: %s mcu hz cycle-limit firmware.elf\n", argv[0]);
    return 2;
  }
  limit = strtoull(argv[3], NULL, 10);
  avr_global_logger_set(to_stderr);
  if (elf_read_firmware(argv[4], &fw) != 0) {
    fprintf(stderr, "simavr_run: cannot read %s\n", argv[4]);
    return 2;
  }
  avr = avr_make_mcu_by_name(argv[1]);
  if (!avr) {
    fprintf(stderr, "simavr_run: simavr has no core %s\n", argv[1]);
    return 2;
  }
  avr_init(avr);
  avr->log = LOG_WARNING;
  avr_load_firmware(avr, &fw);
  avr->frequency = (uint32_t)strtoul(argv[2], NULL, 10);
  /* no console echo of the UART, and no host sleeps while it is polled */
  avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
  flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
  avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
  avr_irq_register_notify(
      avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
      uart_out, NULL);
  while (state != cpu_Done && state != cpu_Crashed) {
    state = avr_run(avr);
    if (avr->cycle > limit) {
      printf("\n# simavr cycle limit %llu passed\n", limit);
      return 3;
    }
  }
  printf("# simavr cycles %llu state %d\n", (unsigned long long)avr->cycle,
         state);
  return state == cpu_Crashed ? 4 : 0;
}
