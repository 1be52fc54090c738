/*
 * SPIX-AE-128 over sLiSCP-light-256 (Spix round-2 submission §2, §2.2),
 * ported from wifi/lwc/spix: eight big-endian 32-bit words, four 64-bit
 * subblocks; each step runs the Simeck box SB-64 on subblocks 1 and 3,
 * adds the step constants to subblocks 0 and 2 and mixes
 * (X0, X1, X2, X3) <- (X1, X2^X3, X3, X0^X1). The rate is state bytes
 * 8..11 and 24..27 (words 2 and 6); the domain separator goes into the
 * last state byte (word 7). 18 steps at initialization and
 * finalization, 9 between data blocks.
 */
#include "lwc.h"
#include "internal.h"

#define SPIX_FULL 18
#define SPIX_REDUCED 9

/* rc0, rc1 (one bit per Simeck round, LSB first), sc0, sc1 per step. */
static const uint8_t spix_rc[SPIX_FULL][4] LWC_ROM = {
    {0x0f, 0x47, 0x08, 0x64}, {0x04, 0xb2, 0x86, 0x6b},
    {0x43, 0xb5, 0xe2, 0x6f}, {0xf1, 0x37, 0x89, 0x2c},
    {0x44, 0x96, 0xe6, 0xdd}, {0x73, 0xee, 0xca, 0x99},
    {0xe5, 0x4c, 0x17, 0xea}, {0x0b, 0xf5, 0x8e, 0x0f},
    {0x47, 0x07, 0x64, 0x04}, {0xb2, 0x82, 0x6b, 0x43},
    {0xb5, 0xa1, 0x6f, 0xf1}, {0x37, 0x78, 0x2c, 0x44},
    {0x96, 0xa2, 0xdd, 0x73}, {0xee, 0xb9, 0x99, 0xe5},
    {0x4c, 0xf2, 0xea, 0x0b}, {0xf5, 0x85, 0x0f, 0x47},
    {0x07, 0x23, 0x04, 0xb2}, {0x82, 0xd9, 0x43, 0xb5},
};

#define SIMECK_F(x) ((ROL32(x, 5) & (x)) ^ ROL32(x, 1))

/* 8 unkeyed Simeck-64 rounds on (x, y), round constant bits rc. */
static void spix_sb64(uint32_t *x, uint32_t *y, uint8_t rc) {
  uint32_t a = *x, b = *y;
  uint8_t j;
  for (j = 0; j < 4; j++) {
    b ^= SIMECK_F(a) ^ 0xfffffffeu ^ (rc & 1u);
    a ^= SIMECK_F(b) ^ 0xfffffffeu ^ ((rc >> 1) & 1u);
    rc >>= 2;
  }
  *x = a;
  *y = b;
}

void spix_permute_state(spix_state *st, uint8_t steps) {
  uint32_t *s = st->w;
  uint8_t i;
  for (i = 0; i < steps; i++) {
    const uint8_t *k = spix_rc[i];
    uint32_t t0, t1;
    spix_sb64(&s[2], &s[3], LWC_ROM8(&k[0]));
    spix_sb64(&s[6], &s[7], LWC_ROM8(&k[1]));
    s[0] ^= 0xffffffffu;
    s[1] ^= 0xffffff00u ^ LWC_ROM8(&k[2]);
    s[4] ^= 0xffffffffu;
    s[5] ^= 0xffffff00u ^ LWC_ROM8(&k[3]);
    /* (X0, X1, X2, X3) <- (X1, X2 ^ X3, X3, X0 ^ X1) */
    t0 = s[0];
    t1 = s[1];
    s[0] = s[2];
    s[1] = s[3];
    s[2] = s[4] ^ s[6];
    s[3] = s[5] ^ s[7];
    s[4] = s[6];
    s[5] = s[7];
    s[6] = t0 ^ s[0];
    s[7] = t1 ^ s[1];
  }
}

void spix_permute(uint8_t b[32]) {
  spix_state s;
  uint8_t i;
  for (i = 0; i < 8; i++)
    s.w[i] = lwc_be32(b + 4 * i);
  spix_permute_state(&s, SPIX_FULL);
  for (i = 0; i < 8; i++)
    lwc_put_be32(b + 4 * i, s.w[i]);
}

static void spix_absorb(spix_state *s, const uint8_t *b) {
  s->w[2] ^= lwc_be32(b);
  s->w[6] ^= lwc_be32(b + 4);
}

static void spix_absorb_key(spix_state *s, const uint8_t *k) {
  spix_absorb(s, k);
  spix_permute_state(s, SPIX_FULL);
  spix_absorb(s, k + 8);
  spix_permute_state(s, SPIX_FULL);
}

/* The state N[0:8] || K[0:8] || N[8:16] || K[8:16], the full permutation,
 * then the key absorbed in two halves. */
void spix_aead_init(spix_state *s, const uint8_t *npub, const uint8_t *k) {
  uint8_t i;
  for (i = 0; i < 2; i++) {
    s->w[4 * i] = lwc_be32(npub + 8 * i);
    s->w[4 * i + 1] = lwc_be32(npub + 8 * i + 4);
    s->w[4 * i + 2] = lwc_be32(k + 8 * i);
    s->w[4 * i + 3] = lwc_be32(k + 8 * i + 4);
  }
  spix_permute_state(s, SPIX_FULL);
  spix_absorb_key(s, k);
}

static void spix_absorb_ad(spix_state *s, const uint8_t *ad, size_t adlen) {
  uint8_t blk[8];
  if (adlen == 0)
    return;
  for (; adlen >= 8; ad += 8, adlen -= 8) {
    spix_absorb(s, ad);
    s->w[7] ^= 0x01;
    spix_permute_state(s, SPIX_REDUCED);
  }
  memset(blk, 0, 8);
  memcpy(blk, ad, adlen);
  blk[adlen] = 0x80;
  spix_absorb(s, blk);
  s->w[7] ^= 0x01;
  spix_permute_state(s, SPIX_REDUCED);
}

/* The tag: state bytes 8..15 and 24..31 after the key is absorbed again. */
static void spix_tag(spix_state *s, const uint8_t *k, uint8_t *tag) {
  spix_absorb_key(s, k);
  lwc_put_be32(tag, s->w[2]);
  lwc_put_be32(tag + 4, s->w[3]);
  lwc_put_be32(tag + 8, s->w[6]);
  lwc_put_be32(tag + 12, s->w[7]);
}

int spix_aead_encrypt(uint8_t *c, size_t *clen, const uint8_t *m, size_t mlen,
                      const uint8_t *ad, size_t adlen, const uint8_t *npub,
                      const uint8_t *k) {
  spix_state s;
  uint8_t blk[8];
  spix_aead_init(&s, npub, k);
  spix_absorb_ad(&s, ad, adlen);
  *clen = mlen + LWC_TAG_BYTES;
  for (; mlen >= 8; m += 8, c += 8, mlen -= 8) {
    spix_absorb(&s, m);
    lwc_put_be32(c, s.w[2]);
    lwc_put_be32(c + 4, s.w[6]);
    s.w[7] ^= 0x02;
    spix_permute_state(&s, SPIX_REDUCED);
  }
  memset(blk, 0, 8);
  memcpy(blk, m, mlen);
  blk[mlen] = 0x80;
  spix_absorb(&s, blk);
  lwc_put_be32(blk, s.w[2]);
  lwc_put_be32(blk + 4, s.w[6]);
  memcpy(c, blk, mlen);
  s.w[7] ^= 0x02;
  spix_permute_state(&s, SPIX_REDUCED);
  spix_tag(&s, k, c + mlen);
  return 0;
}

int spix_aead_decrypt(uint8_t *m, size_t *mlen, const uint8_t *c, size_t clen,
                      const uint8_t *ad, size_t adlen, const uint8_t *npub,
                      const uint8_t *k) {
  spix_state s;
  uint8_t blk[8], tag[16];
  uint8_t *m0 = m;
  size_t n, i;
  if (clen < LWC_TAG_BYTES)
    return -1;
  n = clen - LWC_TAG_BYTES;
  *mlen = n;
  spix_aead_init(&s, npub, k);
  spix_absorb_ad(&s, ad, adlen);
  for (; n >= 8; m += 8, c += 8, n -= 8) {
    uint32_t c0 = lwc_be32(c), c1 = lwc_be32(c + 4);
    lwc_put_be32(m, s.w[2] ^ c0);
    lwc_put_be32(m + 4, s.w[6] ^ c1);
    s.w[2] = c0;
    s.w[6] = c1;
    s.w[7] ^= 0x02;
    spix_permute_state(&s, SPIX_REDUCED);
  }
  lwc_put_be32(blk, s.w[2]);
  lwc_put_be32(blk + 4, s.w[6]);
  for (i = 0; i < n; i++) {
    uint8_t ci = c[i]; /* m may be c */
    m[i] = (uint8_t)(blk[i] ^ ci);
    blk[i] = ci;
  }
  blk[n] ^= 0x80;
  s.w[2] = lwc_be32(blk);
  s.w[6] = lwc_be32(blk + 4);
  s.w[7] ^= 0x02;
  spix_permute_state(&s, SPIX_REDUCED);
  spix_tag(&s, k, tag);
  return lwc_verify(c + n, tag, m0, *mlen);
}

const lwc_cipher lwc_spix = {spix_aead_encrypt, spix_aead_decrypt};
