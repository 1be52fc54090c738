/*
 * host_main.c: the runner on the build machine, for the Go tests.
 *   kat [short]      every KAT of every cipher (runner.h format)
 *   serve            reads commands on stdin, one per line, answers one
 *                    line each (hex in, hex out):
 *     enc <cipher> <key> <nonce> <ad> <msg>   -> C||T
 *     dec <cipher> <key> <nonce> <ad> <ct>    -> M, or "fail"
 *     kdf <cipher> <pmk> <aa> <spa> <anonce> <snonce> -> PTK
 *     mic <cipher> <kck> <frame>              -> MIC
 *     perm <cipher> <state>                   -> the permuted state
 *     hash <msg>                              -> ACE-H-256
 * An empty hex string is written "-".
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plat_putc(char c) { putchar(c); }
void plat_begin(void) {}
uint32_t plat_end(uint16_t *isr) {
  *isr = 0;
  return 0;
}
void plat_stack_paint(void) {}
uint16_t plat_stack_used(void) { return 0; }

#define MAXB 4096

static int unhex(const char *s, uint8_t *b, size_t *n) {
  size_t l = strlen(s), i;
  if (strcmp(s, "-") == 0) {
    *n = 0;
    return 0;
  }
  if (l % 2 || l / 2 > MAXB)
    return -1;
  for (i = 0; i < l / 2; i++) {
    unsigned v;
    if (sscanf(s + 2 * i, "%2x", &v) != 1)
      return -1;
    b[i] = (uint8_t)v;
  }
  *n = l / 2;
  return 0;
}

static const lwc_cipher *by_name(const char *s) {
  if (!strcmp(s, "ace"))
    return &lwc_ace;
  if (!strcmp(s, "spix"))
    return &lwc_spix;
  if (!strcmp(s, "wage"))
    return &lwc_wage;
  if (!strcmp(s, "ascon"))
    return &lwc_ascon;
  return NULL;
}

static uint8_t a[6][MAXB + 16];
static size_t n[6];

/* serve_line handles one command; -1 for a malformed one. */
static int serve_line(char *line) {
  char *tok[8], *save = NULL;
  int nt = 0, i;
  uint8_t out[MAXB + 16];
  size_t olen = 0;
  const lwc_cipher *c;
  for (char *t = strtok_r(line, " \t\r\n", &save); t && nt < 8;
       t = strtok_r(NULL, " \t\r\n", &save))
    tok[nt++] = t;
  if (nt < 2)
    return -1;
  if (!strcmp(tok[0], "hash")) {
    if (nt != 2 || unhex(tok[1], a[0], &n[0]))
      return -1;
    ace_hash(out, a[0], n[0]);
    out_hex(out, 32);
    putchar('\n');
    return 0;
  }
  c = by_name(tok[1]);
  if (!c)
    return -1;
  for (i = 2; i < nt; i++)
    if (unhex(tok[i], a[i - 2], &n[i - 2]))
      return -1;
  if (!strcmp(tok[0], "enc") && nt == 6 && n[0] == 16 && n[1] == 16) {
    c->encrypt(out, &olen, a[3], n[3], a[2], n[2], a[1], a[0]);
  } else if (!strcmp(tok[0], "dec") && nt == 6 && n[0] == 16 && n[1] == 16) {
    if (c->decrypt(out, &olen, a[3], n[3], a[2], n[2], a[1], a[0])) {
      puts("fail");
      return 0;
    }
  } else if (!strcmp(tok[0], "kdf") && nt == 7 && n[0] == 32 && n[1] == 6 &&
             n[2] == 6 && n[3] == 32 && n[4] == 32) {
    lwc_kdf(c, out, a[0], a[1], a[2], a[3], a[4]);
    olen = LWC_PTK_BYTES;
  } else if (!strcmp(tok[0], "mic") && nt == 4 && n[0] == 16) {
    lwc_mic(c, out, a[0], a[1], n[1]);
    olen = LWC_TAG_BYTES;
  } else if (!strcmp(tok[0], "perm") && nt == 3) {
    size_t want = c == &lwc_spix ? 32 : c == &lwc_wage ? 37 : 40;
    if (n[0] != want)
      return -1;
    memcpy(out, a[0], want);
    if (c == &lwc_ace)
      ace_permute(out);
    else if (c == &lwc_spix)
      spix_permute(out);
    else if (c == &lwc_wage)
      wage_permute(out);
    else
      ascon_permute(out);
    olen = want;
  } else {
    return -1;
  }
  if (olen == 0)
    putchar('-');
  out_hex(out, olen);
  putchar('\n');
  return 0;
}

int main(int argc, char **argv) {
  static uint8_t buf[1040];
  if (argc >= 2 && !strcmp(argv[1], "kat")) {
    uint8_t short_mode = argc >= 3 && !strcmp(argv[2], "short");
    uint16_t failures = 0;
    uint8_t id;
    out_str("info platform host\n");
    for (id = MCU_ACE; id <= MCU_ASCON; id++)
      failures += kat_aead(id, short_mode);
    kat_hash(short_mode, buf);
    out_str("end ");
    out_u32(failures);
    putchar('\n');
    return failures != 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "serve")) {
    static char line[4 * MAXB + 256];
    while (fgets(line, sizeof line, stdin)) {
      if (serve_line(line))
        puts("error");
      fflush(stdout);
    }
    return 0;
  }
  fprintf(stderr, "usage: %s kat [short] | serve\n", argv[0]);
  return 2;
}
