/*
 * WAGE-AE-128 (WAGE round-2 submission), ported from wifi/lwc/wage: a
 * 37-stage NLFSR over GF(2^7) (f = x^7 + x^3 + x^2 + x + 1, a cell's
 * coefficient of w^0 in bit 6), 111 rounds. Each round computes
 *   fb = w*S0 + S6 + S8 + S12 + S13 + S19 + S24 + S26 + S30 + S31
 *        + WGP(S36) + rc1,
 * updates S5 += SB(S8), S11 += SB(S15), S19 += WGP(S18) + rc0,
 * S24 += SB(S27), S30 += SB(S34), and shifts S_i <- S_{i+1}, S36 <- fb.
 * The 64-bit rate is stages 8, 9, 15, 16, 18, 27, 28, 34, 35 (7 bits each,
 * most significant first) and the top bit of stage 36.
 *
 * Constant time. The state is secret (it holds the key), so neither SB nor
 * WGP is a table indexed by a cell, as in the Go reference:
 *   - SB is the specification's gate network, computed bitsliced: four
 *     cells in the byte lanes of a 32-bit word (the Go code's sb), or one
 *     cell per 8-bit word where registers are 8 bits wide;
 *   - WGP reads its whole 128-entry table whatever the input and keeps the
 *     entry with masks, as the Go reference does with its bit planes. On
 *     CPUs with a barrel shifter (Cortex-M3, the host) the table is seven
 *     128-bit bit planes, and the input picks a word with masks and a bit
 *     with a register shift, whose time does not depend on the amount
 *     (the Go code's wgp2). AVR and MSP430 have no barrel shifter: a
 *     variable shift is a loop as long as the amount, so there
 *     (LWC_NO_BARREL) the 128 table bytes are all read in groups of 8,
 *     each group masked in or out, and the entry is picked from the group
 *     with masks too. The host test runs both variants.
 */
#include "lwc.h"
#include "internal.h"

#if defined(__AVR__) || defined(__MSP430__)
#define LWC_NO_BARREL 1
#endif

#define WAGE_CELLS 37
#define WAGE_ROUNDS 111

#ifdef LWC_NO_BARREL
/* WGP(x) for x = 0..127 (public constants; computed from the definition
 * WGP(x) = z + (z+1)^33 + (z+1)^39 + (z+1)^41 + (z+1)^104, z = x^13). */
static const uint8_t wgp_table[128] LWC_ROM = {
    0x00, 0x12, 0x0a, 0x4b, 0x66, 0x0c, 0x48, 0x73, 0x79, 0x3e, 0x61, 0x51,
    0x01, 0x15, 0x17, 0x0e, 0x7e, 0x33, 0x68, 0x36, 0x42, 0x35, 0x37, 0x5e,
    0x53, 0x4c, 0x3f, 0x54, 0x58, 0x6e, 0x56, 0x2a, 0x1d, 0x25, 0x6d, 0x65,
    0x5b, 0x71, 0x2f, 0x20, 0x06, 0x18, 0x29, 0x3a, 0x0d, 0x7a, 0x6c, 0x1b,
    0x19, 0x43, 0x70, 0x41, 0x49, 0x22, 0x77, 0x60, 0x4f, 0x45, 0x55, 0x02,
    0x63, 0x47, 0x75, 0x2d, 0x40, 0x46, 0x7d, 0x5c, 0x7c, 0x59, 0x26, 0x0b,
    0x09, 0x03, 0x57, 0x5d, 0x27, 0x78, 0x30, 0x2e, 0x44, 0x52, 0x3b, 0x08,
    0x67, 0x2c, 0x05, 0x6b, 0x2b, 0x1a, 0x21, 0x38, 0x07, 0x0f, 0x4a, 0x11,
    0x50, 0x6a, 0x28, 0x31, 0x10, 0x4d, 0x5f, 0x72, 0x39, 0x16, 0x5a, 0x13,
    0x04, 0x3c, 0x34, 0x1f, 0x76, 0x1e, 0x14, 0x23, 0x1c, 0x32, 0x4e, 0x7b,
    0x24, 0x74, 0x7f, 0x3d, 0x69, 0x64, 0x62, 0x6f,
};

/* 0xff if a == b, else 0 (a, b < 128), without a branch. */
#define EQ_MASK(a, b) ((uint8_t)((uint16_t)((uint16_t)((a) ^ (b)) - 1u) >> 8))

/* WGP of x: all 128 entries are read. The 16 groups of 8 entries that
 * share their top 4 bits are ORed into a0..a7 under a mask that keeps only
 * x's group; then the entry is picked from a0..a7 by x's low 3 bits, again
 * with masks. */
static uint8_t wgp(uint8_t x) {
  uint8_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  uint8_t g, h = x >> 3, l = x & 7;
  const uint8_t *p = wgp_table;
  for (g = 0; g < 16; g++, p += 8) {
    uint8_t m = EQ_MASK(g, h);
    a0 |= LWC_ROM8(p) & m;
    a1 |= LWC_ROM8(p + 1) & m;
    a2 |= LWC_ROM8(p + 2) & m;
    a3 |= LWC_ROM8(p + 3) & m;
    a4 |= LWC_ROM8(p + 4) & m;
    a5 |= LWC_ROM8(p + 5) & m;
    a6 |= LWC_ROM8(p + 6) & m;
    a7 |= LWC_ROM8(p + 7) & m;
  }
  return (a0 & EQ_MASK(0, l)) | (a1 & EQ_MASK(1, l)) | (a2 & EQ_MASK(2, l)) |
         (a3 & EQ_MASK(3, l)) | (a4 & EQ_MASK(4, l)) | (a5 & EQ_MASK(5, l)) |
         (a6 & EQ_MASK(6, l)) | (a7 & EQ_MASK(7, l));
}

static void wgp2(uint8_t x, uint8_t y, uint8_t *wx, uint8_t *wy) {
  *wx = wgp(x);
  *wy = wgp(y);
}
#else
/* Bit plane j, bit i (word i/32, bit i%32) is bit j of WGP(i). */
static const uint32_t wgp_planes[7][4] = {
    {0x05627d88u, 0xf75b947fu, 0xb5d41fa4u, 0x9c888968u},
    {0xe5dbc29eu, 0x3962a950u, 0x739696c2u, 0xc4eb8ec2u},
    {0x6ee9e230u, 0xe740514fu, 0x30719c5eu, 0xaf57f260u},
    {0xb685836cu, 0x8111fe55u, 0x6baca9bcu, 0x9cd2a566u},
    {0x5deb6b82u, 0x4445aa31u, 0x8a066c3cu, 0x0eb7efd9u},
    {0xa46f0790u, 0xd0e46ceeu, 0x0db4f054u, 0xffa9618eu},
    {0x7b950dd8u, 0x77de603cu, 0x40932c3fu, 0xf6c104e3u},
};

/* WGP of x and y: all four words of every plane are read, the word is
 * selected with masks from bits 5 and 6, the bit by a register shift. */
static void wgp2(uint8_t x, uint8_t y, uint8_t *wx, uint8_t *wy) {
  uint32_t x5 = 0u - ((uint32_t)(x >> 5) & 1u), x6 = 0u - (uint32_t)(x >> 6);
  uint32_t y5 = 0u - ((uint32_t)(y >> 5) & 1u), y6 = 0u - (uint32_t)(y >> 6);
  unsigned sx = x & 31u, sy = y & 31u;
  uint8_t rx = 0, ry = 0, j;
  for (j = 0; j < 7; j++) {
    const uint32_t *p = wgp_planes[j];
    uint32_t d01 = p[0] ^ p[1], d23 = p[2] ^ p[3];
    uint32_t lx = p[0] ^ (d01 & x5), hx = p[2] ^ (d23 & x5);
    uint32_t ly = p[0] ^ (d01 & y5), hy = p[2] ^ (d23 & y5);
    lx ^= (lx ^ hx) & x6;
    ly ^= (ly ^ hy) & y6;
    rx |= (uint8_t)(((lx >> sx) & 1u) << j);
    ry |= (uint8_t)(((ly >> sy) & 1u) << j);
  }
  *wx = rx;
  *wy = ry;
}
#endif

/* SB: five rounds of P.Q, one more Q, then x0 and x2 complemented, where
 *   Q(x) = (x0 + x2 x3, x1, x2, ~x3 + x5 x6, x4, ~x5 + x2 x4, x6),
 *   P(x) = (x6, x3, x0, x4, x2, x5, x1),
 * computed as gates on words xi that hold bit xi of a cell in the low bit
 * of each lane: on 32-bit CPUs four cells in the byte lanes of a word, on
 * 8-bit CPUs one cell (whose registers are 8 bits wide). */
#ifdef LWC_NO_BARREL
typedef uint8_t sb_word;
#define SB_LANES 0x01u
#else
typedef uint32_t sb_word;
#define SB_LANES 0x01010101u
#endif

static sb_word wage_sb(sb_word x) {
  sb_word x0 = x >> 6, x1 = x >> 5, x2 = x >> 4, x3 = x >> 3, x4 = x >> 2,
          x5 = x >> 1, x6 = x, t;
  uint8_t r;
  for (r = 0; r < 6; r++) {
    x0 ^= x2 & x3;
    x3 = ~x3 ^ (x5 & x6);
    x5 = ~x5 ^ (x2 & x4);
    if (r == 5) /* public loop counter: the last round has no P */
      break;
    t = x0; /* P: (x0..x6) <- (x6, x3, x0, x4, x2, x5, x1) */
    x0 = x6;
    x6 = x1;
    x1 = x3;
    x3 = x4;
    x4 = x2;
    x2 = t;
  }
  x0 = ~x0;
  x2 = ~x2;
  return (sb_word)((x0 & SB_LANES) << 6 | (x1 & SB_LANES) << 5 |
                   (x2 & SB_LANES) << 4 | (x3 & SB_LANES) << 3 |
                   (x4 & SB_LANES) << 2 | (x5 & SB_LANES) << 1 |
                   (x6 & SB_LANES));
}

/* Multiplication by w: a shift towards bit 0, w^7 = 1 + w + w^2 + w^3. */
#define WAGE_OMEGA(x) ((uint8_t)(((x) >> 1) ^ (0x78u & (0u - ((x) & 1u)))))

/* The LFSR of the round constants: a_{i+7} = a_i + a_{i+1}, from all ones. */
#define WAGE_LFSR(x) ((uint8_t)(((x) >> 1) | ((((x) ^ ((x) >> 1)) & 1u) << 6)))

/* The rounds run over a 148-byte window: round r sees stage i at w[r+i]
 * and appends its feedback at w[r+37], instead of shifting 37 bytes. */
void wage_permute(uint8_t s[WAGE_CELLS]) {
  uint8_t w[WAGE_CELLS + WAGE_ROUNDS];
  uint8_t rc = 0x7f, r, i;
  for (i = 0; i < WAGE_CELLS; i++)
    w[i] = s[i] & 0x7f;
  for (r = 0; r < WAGE_ROUNDS; r++) {
    uint8_t *t = w + r;
    uint8_t w36, w18, fb, rc0, rc1;
#ifndef LWC_NO_BARREL
    uint32_t sb;
#endif
    rc0 = rc;
    rc = WAGE_LFSR(rc);
    rc1 = rc;
    rc = WAGE_LFSR(rc);
    wgp2(t[36], t[18], &w36, &w18);
    fb = WAGE_OMEGA(t[0]) ^ t[6] ^ t[8] ^ t[12] ^ t[13] ^ t[19] ^ t[24] ^
         t[26] ^ t[30] ^ t[31] ^ w36 ^ rc1;
#ifdef LWC_NO_BARREL
    t[5] ^= wage_sb(t[8]);
    t[11] ^= wage_sb(t[15]);
    t[24] ^= wage_sb(t[27]);
    t[30] ^= wage_sb(t[34]);
#else
    sb = wage_sb((uint32_t)t[8] | (uint32_t)t[15] << 8 |
                 (uint32_t)t[27] << 16 | (uint32_t)t[34] << 24);
    t[5] ^= (uint8_t)sb;
    t[11] ^= (uint8_t)(sb >> 8);
    t[24] ^= (uint8_t)(sb >> 16);
    t[30] ^= (uint8_t)(sb >> 24);
#endif
    t[19] ^= w18 ^ rc0;
    t[WAGE_CELLS] = fb;
  }
  memcpy(s, w + WAGE_ROUNDS, WAGE_CELLS);
}

/* Bits of byte strings, most significant first. get7 reads the 7 bits at
 * bit position pos of b; put_bits ORs the n-bit value v in at pos (the
 * target bits must be zero). Positions are public. */
static uint8_t get7(const uint8_t *b, uint8_t pos) {
  uint8_t i = pos >> 3, off = pos & 7;
  uint16_t v = (uint16_t)b[i] << 8;
  if (off > 1)
    v |= b[i + 1];
  return (uint8_t)(v >> (9 - off)) & 0x7f;
}

static void put_bits(uint8_t *b, uint8_t pos, uint8_t v, uint8_t n) {
  uint8_t i = pos >> 3, off = pos & 7;
  uint16_t x = (uint16_t)((uint16_t)v << (16 - n - off));
  b[i] |= (uint8_t)(x >> 8);
  if (off + n > 8)
    b[i + 1] |= (uint8_t)x;
}

/* The stages of the rate, most significant first; then the top bit of
 * stage 36. */
static const uint8_t wage_rate_cells[9] LWC_ROM = {8,  9,  15, 16, 18,
                                                   27, 28, 34, 35};

static void wage_get_rate(const wage_state *s, uint8_t r[8]) {
  uint8_t i;
  memset(r, 0, 8);
  for (i = 0; i < 9; i++)
    put_bits(r, 7 * i, s->s[LWC_ROM8(&wage_rate_cells[i])], 7);
  r[7] |= s->s[36] >> 6;
}

static void wage_set_rate(wage_state *s, const uint8_t r[8]) {
  uint8_t i;
  for (i = 0; i < 9; i++)
    s->s[LWC_ROM8(&wage_rate_cells[i])] = get7(r, 7 * i);
  s->s[36] = (uint8_t)((s->s[36] & 0x3f) | (r[7] & 1) << 6);
}

/* rate ^= b (8 bytes); the new rate goes to out if out is not NULL; then
 * the domain bits into stage 0 and the permutation. */
static void wage_absorb(wage_state *s, const uint8_t *b, uint8_t domain,
                        uint8_t *out) {
  uint8_t r[8], i;
  wage_get_rate(s, r);
  for (i = 0; i < 8; i++)
    r[i] ^= b[i];
  wage_set_rate(s, r);
  if (out)
    memcpy(out, r, 8);
  s->s[0] ^= domain;
  wage_permute(s->s);
}

static void wage_absorb_key(wage_state *s, const uint8_t *k) {
  wage_absorb(s, k, 0, NULL);
  wage_absorb(s, k + 8, 0, NULL);
}

/* The 19 components of a 128-bit value: cells 0..8 are bits 0..62,
 * cells 9..17 bits 64..126 in 7-bit groups; cell 18 holds bit 63 in its
 * bit 6 and bit 127 in its bit 5. */
static void wage_cells(uint8_t c[19], const uint8_t *b) {
  uint8_t i;
  for (i = 0; i < 9; i++) {
    c[i] = get7(b, 7 * i);
    c[9 + i] = get7(b + 8, 7 * i);
  }
  c[18] = (uint8_t)((b[7] & 1) << 6 | (b[15] & 1) << 5);
}

/* The key's cells fill stages 0..8 (even cells) and 19..27 (odd), the
 * nonce's 28..36 (even) and 9..17 (odd, the last two swapped); stage 18
 * takes the four leftover bits. Then permute and absorb the key. */
void wage_aead_init(wage_state *s, const uint8_t *npub, const uint8_t *k) {
  uint8_t kc[19], nc[19], i, t;
  wage_cells(kc, k);
  wage_cells(nc, npub);
  for (i = 0; i < 9; i++) {
    s->s[i] = kc[2 * i];
    s->s[19 + i] = kc[2 * i + 1];
    s->s[28 + i] = nc[2 * i];
    s->s[9 + i] = nc[2 * i + 1];
  }
  t = s->s[16];
  s->s[16] = s->s[17];
  s->s[17] = t;
  s->s[18] = kc[18] | nc[18] >> 2;
  wage_permute(s->s);
  wage_absorb_key(s, k);
}

#define WAGE_DOMAIN_AD 0x40
#define WAGE_DOMAIN_MSG 0x20

static void wage_absorb_ad(wage_state *s, const uint8_t *ad, size_t adlen) {
  uint8_t blk[8];
  if (adlen == 0)
    return;
  for (; adlen >= 8; ad += 8, adlen -= 8)
    wage_absorb(s, ad, WAGE_DOMAIN_AD, NULL);
  memset(blk, 0, 8);
  memcpy(blk, ad, adlen);
  blk[adlen] = 0x80;
  wage_absorb(s, blk, WAGE_DOMAIN_AD, NULL);
}

/* The tag: the key absorbed once more, then the 126 bits of stages 28, 9,
 * 29, 10, ..., 36, 17 and bits 4 and 3 of stage 18, most significant
 * first. */
static void wage_tag(wage_state *s, const uint8_t *k, uint8_t *tag) {
  uint8_t i;
  wage_absorb_key(s, k);
  memset(tag, 0, 16);
  for (i = 0; i < 9; i++) {
    put_bits(tag, 14 * i, s->s[28 + i], 7);
    put_bits(tag, 14 * i + 7, s->s[9 + i], 7);
  }
  put_bits(tag, 126, (s->s[18] >> 3) & 3, 2);
}

int wage_aead_encrypt(uint8_t *c, size_t *clen, const uint8_t *m, size_t mlen,
                      const uint8_t *ad, size_t adlen, const uint8_t *npub,
                      const uint8_t *k) {
  wage_state s;
  uint8_t blk[8];
  wage_aead_init(&s, npub, k);
  wage_absorb_ad(&s, ad, adlen);
  *clen = mlen + LWC_TAG_BYTES;
  /* the ciphertext block is the rate after the message block is added */
  for (; mlen >= 8; m += 8, c += 8, mlen -= 8) {
    memcpy(blk, m, 8); /* c may be m */
    wage_absorb(&s, blk, WAGE_DOMAIN_MSG, c);
  }
  memset(blk, 0, 8);
  memcpy(blk, m, mlen);
  blk[mlen] = 0x80;
  wage_absorb(&s, blk, WAGE_DOMAIN_MSG, blk);
  memcpy(c, blk, mlen);
  wage_tag(&s, k, c + mlen);
  return 0;
}

int wage_aead_decrypt(uint8_t *m, size_t *mlen, const uint8_t *c, size_t clen,
                      const uint8_t *ad, size_t adlen, const uint8_t *npub,
                      const uint8_t *k) {
  wage_state s;
  uint8_t r[8], tag[16];
  uint8_t *m0 = m;
  size_t n;
  uint8_t i, last;
  if (clen < LWC_TAG_BYTES)
    return -1;
  n = clen - LWC_TAG_BYTES;
  *mlen = n;
  wage_aead_init(&s, npub, k);
  wage_absorb_ad(&s, ad, adlen);
  /* each block: m = rate ^ c and the rate becomes c; the last block (0 to
   * 7 bytes) takes c in its first bytes and the padding byte after them */
  for (;;) {
    last = n < 8;
    uint8_t len = last ? (uint8_t)n : 8;
    wage_get_rate(&s, r);
    for (i = 0; i < len; i++) {
      uint8_t ci = c[i]; /* m may be c */
      m[i] = (uint8_t)(r[i] ^ ci);
      r[i] = ci;
    }
    if (last)
      r[len] ^= 0x80;
    wage_set_rate(&s, r);
    s.s[0] ^= WAGE_DOMAIN_MSG;
    wage_permute(s.s);
    if (last)
      break;
    m += 8;
    c += 8;
    n -= 8;
  }
  wage_tag(&s, k, tag);
  return lwc_verify(c + n, tag, m0, *mlen);
}

const lwc_cipher lwc_wage = {wage_aead_encrypt, wage_aead_decrypt};
