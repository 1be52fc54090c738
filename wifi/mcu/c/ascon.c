/*
 * Ascon-AEAD128 (NIST SP 800-232 §3, §4), ported from wifi/lwc/ascon. The
 * five 64-bit words S0..S4 are kept as 32-bit halves (w[2i] low, w[2i+1]
 * high) so that 8- and 16-bit targets need no 64-bit arithmetic; a 64-bit
 * rotation is two pairs of 32-bit shifts. Bytes are little-endian (state
 * byte 8i+j is byte j of Si); the rate is S0 || S1 (16 bytes) and padding
 * is the byte 0x01 after the data.
 */
#include "lwc.h"
#include "internal.h"

/* c0..c15 of SP 800-232 Table 5; Ascon-p[n] uses the last n. */
static const uint8_t ascon_rc[16] LWC_ROM = {
    0x3c, 0x2d, 0x1e, 0x0f, 0xf0, 0xe1, 0xd2, 0xc3,
    0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b,
};

/* The halves of (h:l) >>> n for 0 < n < 32; for n = 32 + m the result is
 * (ROR_LO(l, h, m) : ROR_HI(l, h, m)) with the halves swapped. */
#define ROR_LO(l, h, n) (((l) >> (n)) | ((h) << (32 - (n))))
#define ROR_HI(l, h, n) (((h) >> (n)) | ((l) << (32 - (n))))

void ascon_permute_state(ascon_state *st, uint8_t rounds) {
  uint32_t *s = st->w;
  uint8_t r, h;
  for (r = 16 - rounds; r < 16; r++) {
    uint32_t l, hi;
    s[4] ^= LWC_ROM8(&ascon_rc[r]); /* pC: into the low half of S2 */
    for (h = 0; h < 2; h++) {       /* pS, bitsliced, on each half */
      uint32_t x0 = s[h], x1 = s[2 + h], x2 = s[4 + h], x3 = s[6 + h],
               x4 = s[8 + h], t0, t1, t2, t3, t4;
      x0 ^= x4;
      x4 ^= x3;
      x2 ^= x1;
      t0 = x1 & ~x0;
      t1 = x2 & ~x1;
      t2 = x3 & ~x2;
      t3 = x4 & ~x3;
      t4 = x0 & ~x4;
      x0 ^= t1;
      x1 ^= t2;
      x2 ^= t3;
      x3 ^= t4;
      x4 ^= t0;
      x1 ^= x0;
      x0 ^= x4;
      x3 ^= x2;
      x2 = ~x2;
      s[h] = x0;
      s[2 + h] = x1;
      s[4 + h] = x2;
      s[6 + h] = x3;
      s[8 + h] = x4;
    }
    /* pL: Si ^= (Si >>> a) ^ (Si >>> b) */
    l = s[0], hi = s[1]; /* 19, 28 */
    s[0] = l ^ ROR_LO(l, hi, 19) ^ ROR_LO(l, hi, 28);
    s[1] = hi ^ ROR_HI(l, hi, 19) ^ ROR_HI(l, hi, 28);
    l = s[2], hi = s[3]; /* 61 = 32 + 29, 39 = 32 + 7 */
    s[2] = l ^ ROR_HI(l, hi, 29) ^ ROR_HI(l, hi, 7);
    s[3] = hi ^ ROR_LO(l, hi, 29) ^ ROR_LO(l, hi, 7);
    l = s[4], hi = s[5]; /* 1, 6 */
    s[4] = l ^ ROR_LO(l, hi, 1) ^ ROR_LO(l, hi, 6);
    s[5] = hi ^ ROR_HI(l, hi, 1) ^ ROR_HI(l, hi, 6);
    l = s[6], hi = s[7]; /* 10, 17 */
    s[6] = l ^ ROR_LO(l, hi, 10) ^ ROR_LO(l, hi, 17);
    s[7] = hi ^ ROR_HI(l, hi, 10) ^ ROR_HI(l, hi, 17);
    l = s[8], hi = s[9]; /* 7, 41 = 32 + 9 */
    s[8] = l ^ ROR_LO(l, hi, 7) ^ ROR_HI(l, hi, 9);
    s[9] = hi ^ ROR_HI(l, hi, 7) ^ ROR_LO(l, hi, 9);
  }
}

void ascon_permute(uint8_t b[40]) {
  ascon_state s;
  uint8_t i;
  for (i = 0; i < 10; i++)
    s.w[i] = lwc_le32(b + 4 * i);
  ascon_permute_state(&s, 12);
  for (i = 0; i < 10; i++)
    lwc_put_le32(b + 4 * i, s.w[i]);
}

/* S = Ascon-p[12](IV || K || N) ^ (0^192 || K) (§4.1.1). */
void ascon_aead_init(ascon_state *s, const uint8_t *npub, const uint8_t *k) {
  uint8_t i;
  s->w[0] = 0x808c0001u; /* IV = 0x00001000808c0001 */
  s->w[1] = 0x00001000u;
  for (i = 0; i < 4; i++) {
    s->w[2 + i] = lwc_le32(k + 4 * i);
    s->w[6 + i] = lwc_le32(npub + 4 * i);
  }
  ascon_permute_state(s, 12);
  for (i = 0; i < 4; i++)
    s->w[6 + i] ^= lwc_le32(k + 4 * i);
}

static void ascon_xor_rate(ascon_state *s, const uint8_t b[16]) {
  uint8_t i;
  for (i = 0; i < 4; i++)
    s->w[i] ^= lwc_le32(b + 4 * i);
}

static void ascon_get_rate(const ascon_state *s, uint8_t b[16]) {
  uint8_t i;
  for (i = 0; i < 4; i++)
    lwc_put_le32(b + 4 * i, s->w[i]);
}

/* Padded 16-byte blocks of the associated data, each followed by
 * Ascon-p[8] (none if it is empty), then the domain bit S ^= 0^319 || 1. */
static void ascon_absorb_ad(ascon_state *s, const uint8_t *ad, size_t adlen) {
  uint8_t blk[16];
  if (adlen > 0) {
    for (; adlen >= 16; ad += 16, adlen -= 16) {
      ascon_xor_rate(s, ad);
      ascon_permute_state(s, 8);
    }
    memset(blk, 0, 16);
    memcpy(blk, ad, adlen);
    blk[adlen] = 0x01;
    ascon_xor_rate(s, blk);
    ascon_permute_state(s, 8);
  }
  s->w[9] ^= 0x80000000u;
}

/* S ^= 0^128 || K || 0^64, Ascon-p[12], T = (S3 || S4) ^ K. */
static void ascon_tag(ascon_state *s, const uint8_t *k, uint8_t *tag) {
  uint8_t i;
  for (i = 0; i < 4; i++)
    s->w[4 + i] ^= lwc_le32(k + 4 * i);
  ascon_permute_state(s, 12);
  for (i = 0; i < 4; i++)
    lwc_put_le32(tag + 4 * i, s->w[6 + i] ^ lwc_le32(k + 4 * i));
}

int ascon_aead_encrypt(uint8_t *c, size_t *clen, const uint8_t *m,
                       size_t mlen, const uint8_t *ad, size_t adlen,
                       const uint8_t *npub, const uint8_t *k) {
  ascon_state s;
  uint8_t blk[16];
  ascon_aead_init(&s, npub, k);
  ascon_absorb_ad(&s, ad, adlen);
  *clen = mlen + LWC_TAG_BYTES;
  for (; mlen >= 16; m += 16, c += 16, mlen -= 16) {
    ascon_xor_rate(&s, m);
    ascon_get_rate(&s, c);
    ascon_permute_state(&s, 8);
  }
  /* the last block, 0 to 15 bytes, padded; no permutation follows */
  memset(blk, 0, 16);
  memcpy(blk, m, mlen);
  blk[mlen] = 0x01;
  ascon_xor_rate(&s, blk);
  ascon_get_rate(&s, blk);
  memcpy(c, blk, mlen);
  ascon_tag(&s, k, c + mlen);
  return 0;
}

int ascon_aead_decrypt(uint8_t *m, size_t *mlen, const uint8_t *c,
                       size_t clen, const uint8_t *ad, size_t adlen,
                       const uint8_t *npub, const uint8_t *k) {
  ascon_state s;
  uint8_t blk[16], tag[16];
  uint8_t *m0 = m;
  size_t n, i;
  if (clen < LWC_TAG_BYTES)
    return -1;
  n = clen - LWC_TAG_BYTES;
  *mlen = n;
  ascon_aead_init(&s, npub, k);
  ascon_absorb_ad(&s, ad, adlen);
  for (; n >= 16; m += 16, c += 16, n -= 16) {
    ascon_get_rate(&s, blk);
    for (i = 0; i < 16; i++) {
      uint8_t ci = c[i]; /* m may be c */
      m[i] = (uint8_t)(blk[i] ^ ci);
      blk[i] = ci;
    }
    for (i = 0; i < 4; i++)
      s.w[i] = lwc_le32(blk + 4 * i);
    ascon_permute_state(&s, 8);
  }
  /* the first n state bytes become the ciphertext, the padding after */
  ascon_get_rate(&s, blk);
  for (i = 0; i < n; i++) {
    uint8_t ci = c[i];
    m[i] = (uint8_t)(blk[i] ^ ci);
    blk[i] = ci;
  }
  blk[n] ^= 0x01;
  for (i = 0; i < 4; i++)
    s.w[i] = lwc_le32(blk + 4 * i);
  ascon_tag(&s, k, tag);
  return lwc_verify(c + n, tag, m0, *mlen);
}

const lwc_cipher lwc_ascon = {ascon_aead_encrypt, ascon_aead_decrypt};
