/* kat.c: the known-answer runs and the output helpers (see runner.h). */
#include "runner.h"

#include <string.h>

void out_str(const char *s) {
  while (*s)
    plat_putc(*s++);
}

void out_hex(const uint8_t *b, size_t n) {
  static const char digits[] = "0123456789ABCDEF";
  size_t i;
  for (i = 0; i < n; i++) {
    plat_putc(digits[b[i] >> 4]);
    plat_putc(digits[b[i] & 15]);
  }
}

void out_u32(uint32_t v) {
  char buf[11];
  uint8_t i = sizeof buf - 1;
  buf[i] = 0;
  do {
    buf[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  out_str(buf + i);
}

const char *const mcu_cipher_names[4] = {"ace", "spix", "wage", "ascon"};

const lwc_cipher *mcu_cipher(uint8_t id) {
  switch (id) {
#ifdef MCU_HAVE_ACE
  case MCU_ACE:
    return &lwc_ace;
#endif
#ifdef MCU_HAVE_SPIX
  case MCU_SPIX:
    return &lwc_spix;
#endif
#ifdef MCU_HAVE_WAGE
  case MCU_WAGE:
    return &lwc_wage;
#endif
#ifdef MCU_HAVE_ASCON
  case MCU_ASCON:
    return &lwc_ascon;
#endif
  }
  return 0;
}

/* The lengths of the short KAT subset: both sides of every block edge. */
static uint8_t short_len(uint8_t n) {
  return n <= 1 || n == 7 || n == 8 || n == 9 || n == 15 || n == 16 ||
         n == 17 || n == 31 || n == 32;
}

/* decrypt_fails: decryption of c (clen bytes) under ad must fail and leave
 * zeros where the message would go. */
static uint8_t decrypt_fails(const lwc_cipher *c, const uint8_t *ct,
                             size_t clen, const uint8_t *ad, size_t adlen,
                             const uint8_t *npub, const uint8_t *k) {
  uint8_t pt[32];
  size_t mlen = 0, i;
  uint8_t z = 0;
  memset(pt, 0xaa, sizeof pt);
  if (c->decrypt(pt, &mlen, ct, clen, ad, adlen, npub, k) == 0)
    return 0;
  for (i = 0; i < clen - LWC_TAG_BYTES; i++)
    z |= pt[i];
  return z == 0;
}

uint16_t kat_aead(uint8_t id, uint8_t short_mode) {
  const lwc_cipher *c = mcu_cipher(id);
  uint8_t k[16], npub[16], msg[32], ad[32], ct[48], pt[32];
  uint8_t mlen, adlen, i;
  uint16_t count = 0, failures = 0;
  /* The LWC round-2 files count every field from 00; the Ascon files
   * (ascon-c) start the nonce at 10, the message at 20 and the AD at 30. */
  uint8_t base = id == MCU_ASCON ? 0x10 : 0;
  for (i = 0; i < 16; i++) {
    k[i] = i;
    npub[i] = (uint8_t)(base + i);
  }
  for (i = 0; i < 32; i++) {
    msg[i] = (uint8_t)(2 * base + i);
    ad[i] = (uint8_t)(3 * base + i);
  }
  for (mlen = 0; mlen <= 32; mlen++) {
    for (adlen = 0; adlen <= 32; adlen++) {
      size_t clen = 0, plen = 0;
      uint8_t ok;
      count++;
      if (short_mode && !(short_len(mlen) && short_len(adlen)))
        continue;
      c->encrypt(ct, &clen, msg, mlen, ad, adlen, npub, k);
      ok = c->decrypt(pt, &plen, ct, clen, ad, adlen, npub, k) == 0 &&
           plen == mlen && memcmp(pt, msg, mlen) == 0;
      /* a flipped bit of the tag, of the ciphertext, of the AD */
      ct[clen - 1 - count % 16] ^= (uint8_t)(1u << (count % 8));
      ok = ok && decrypt_fails(c, ct, clen, ad, adlen, npub, k);
      ct[clen - 1 - count % 16] ^= (uint8_t)(1u << (count % 8));
      if (!short_mode && mlen > 0) {
        ct[count % mlen] ^= (uint8_t)(0x80u >> (count % 8));
        ok = ok && decrypt_fails(c, ct, clen, ad, adlen, npub, k);
        ct[count % mlen] ^= (uint8_t)(0x80u >> (count % 8));
      }
      if (!short_mode && adlen > 0) {
        ad[count % adlen] ^= (uint8_t)(1u << (count % 8));
        ok = ok && decrypt_fails(c, ct, clen, ad, adlen, npub, k);
        ad[count % adlen] ^= (uint8_t)(1u << (count % 8));
      }
      failures += !ok;
      out_str("kat ");
      out_str(mcu_cipher_names[id]);
      plat_putc(' ');
      out_u32(count);
      plat_putc(' ');
      out_hex(ct, clen);
      out_str(ok ? " 1\n" : " 0\n");
    }
  }
  return failures;
}

#ifdef MCU_HAVE_ACE
static uint8_t short_hash_len(uint16_t n) {
  return n <= 1 || (n >= 7 && n <= 9) || (n >= 15 && n <= 17) ||
         (n >= 31 && n <= 33) || (n >= 127 && n <= 129) || n >= 1023;
}

void kat_hash(uint8_t short_mode, uint8_t *buf) {
  uint8_t md[32];
  uint16_t n;
  for (n = 0; n < 1024; n++)
    buf[n] = (uint8_t)n;
  for (n = 0; n <= 1024; n++) {
    if (short_mode && !short_hash_len(n))
      continue;
    ace_hash(md, buf, n);
    out_str("hash ");
    out_u32(n + 1u);
    plat_putc(' ');
    out_hex(md, 32);
    plat_putc('\n');
  }
}
#endif
