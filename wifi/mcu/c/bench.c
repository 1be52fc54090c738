/*
 * bench.c: the measured operations (see runner.h). Each is bracketed by
 * plat_begin/plat_end with the stack painted before; variant 1 repeats an
 * operation on other keys and data, so that a constant-time
 * implementation shows the same count for both.
 */
#include "runner.h"

#include <string.h>

void bench_report(const char *cipher, const char *op, uint8_t variant,
                  uint32_t raw, uint16_t isr, uint16_t stack) {
  out_str("m ");
  out_str(cipher);
  plat_putc(' ');
  out_str(op);
  plat_putc(' ');
  out_u32(variant);
  plat_putc(' ');
  out_u32(raw);
  plat_putc(' ');
  out_u32(isr);
  plat_putc(' ');
  out_u32(stack);
  plat_putc('\n');
}

/* The state of any cipher. */
typedef union {
#ifdef MCU_HAVE_ACE
  ace_state ace;
#endif
#ifdef MCU_HAVE_SPIX
  spix_state spix;
#endif
#ifdef MCU_HAVE_WAGE
  wage_state wage;
#endif
#ifdef MCU_HAVE_ASCON
  ascon_state ascon;
#endif
  uint8_t b[40];
} any_state;

/* setup and one permutation, called directly (no function pointer). */
static void bench_state(uint8_t id, const uint8_t *k, const uint8_t *npub,
                        uint8_t v) {
  any_state st;
  const char *name = mcu_cipher_names[id];
  uint8_t i;
  for (i = 0; i < sizeof st.b; i++)
    st.b[i] = (uint8_t)(k[i & 15] ^ (i * 29u));
  if (id == MCU_WAGE)
    for (i = 0; i < 37; i++)
      st.b[i] &= 0x7f;
  switch (id) {
#ifdef MCU_HAVE_ACE
  case MCU_ACE:
    MEASURE(name, "perm", v, ace_permute_state(&st.ace));
    MEASURE(name, "setup", v, ace_aead_init(&st.ace, npub, k));
    break;
#endif
#ifdef MCU_HAVE_SPIX
  case MCU_SPIX:
    MEASURE(name, "perm", v, spix_permute_state(&st.spix, 18));
    MEASURE(name, "permr", v, spix_permute_state(&st.spix, 9));
    MEASURE(name, "setup", v, spix_aead_init(&st.spix, npub, k));
    break;
#endif
#ifdef MCU_HAVE_WAGE
  case MCU_WAGE:
    MEASURE(name, "perm", v, wage_permute(st.wage.s));
    MEASURE(name, "setup", v, wage_aead_init(&st.wage, npub, k));
    break;
#endif
#ifdef MCU_HAVE_ASCON
  case MCU_ASCON:
    MEASURE(name, "perm", v, ascon_permute_state(&st.ascon, 12));
    MEASURE(name, "permr", v, ascon_permute_state(&st.ascon, 8));
    MEASURE(name, "setup", v, ascon_aead_init(&st.ascon, npub, k));
    break;
#endif
  }
}

void bench(uint8_t id, uint8_t *buf) {
  const lwc_cipher *c = mcu_cipher(id);
  const char *name = mcu_cipher_names[id];
  uint8_t k[16], npub[16], pmk[32], an[32], sn[32], ptk[48], mic[32];
  uint8_t aa[6] = {2, 0, 0, 0, 0, 1}, spa[6] = {2, 0, 0, 0, 0, 2};
  size_t len;
  uint16_t i;
  uint8_t v;

  MEASURE("-", "empty", 0, (void)0);
  for (v = 0; v < 2; v++) {
    for (i = 0; i < 16; i++) {
      k[i] = (uint8_t)(v ? 0xf0u ^ (i * 37u) : i);
      npub[i] = (uint8_t)(v ? 0x3cu + i * 11u : 0x10u + i);
    }
    bench_state(id, k, npub, v);

    /* the talk's KDF: the inputs of wifi/airtime's "kdf" shape (variant
     * 1: other secrets, the same order of the public nonces) */
    memset(pmk, v ? 0xa5 : 0x5a, 32);
    memset(an, v ? 3 : 1, 32);
    memset(sn, v ? 4 : 2, 32);
    MEASURE(name, "kdf", v, lwc_kdf(c, ptk, pmk, aa, spa, an, sn));
    /* the talk's MIC: four 64-bit blocks of AD; then a 121-octet frame */
    for (i = 0; i < 121; i++)
      buf[i] = (uint8_t)(v ? i * 7u : 0);
    MEASURE(name, "mic4", v, lwc_mic(c, mic, ptk, buf, 32));
    MEASURE(name, "mic", v, lwc_mic(c, mic, ptk, buf, 121));

    for (i = 0; i < 128; i++)
      buf[i] = (uint8_t)(v ? 255 - i : i);
    MEASURE(name, "enc0", v, c->encrypt(buf, &len, buf, 0, buf, 0, npub, k));
    MEASURE(name, "ae128ad0", v,
            c->encrypt(buf + 16, &len, buf + 16, 128, buf, 0, npub, k));
    MEASURE(name, "ae128ad16", v,
            c->encrypt(buf + 16, &len, buf + 16, 128, buf, 16, npub, k));
    /* decryption (not in place, so that it can run again): variant 0
     * verifies, variant 1 has a wrong tag */
    buf[16 + 128] ^= v;
    MEASURE(name, "dec128", v,
            c->decrypt(buf + 160, &len, buf + 16, 144, buf, 16, npub, k));
#ifdef MCU_HAVE_ACE
    if (id == MCU_ACE)
      MEASURE(name, "hash128", v, ace_hash(mic, buf, 128));
#endif
  }
  /* throughput: a 1024-byte message, no AD, in place */
  for (i = 0; i < 1024; i++)
    buf[i] = (uint8_t)i;
  MEASURE(name, "enc1024", 0, c->encrypt(buf, &len, buf, 1024, buf, 0, npub, k));
}
