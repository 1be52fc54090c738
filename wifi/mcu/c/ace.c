/*
 * ACE-AE-128 (ACE round-2 submission §2.3, §2.4), ported from
 * wifi/lwc/ace: the 320-bit state A||B||C||D||E as ten big-endian 32-bit
 * words; each of the 16 steps runs the Simeck box SB-64 (8 unkeyed
 * Simeck-64 rounds) on A, C and E, mixes them into B, D, E with the step
 * constants and shuffles the words by pi = (3, 2, 0, 4, 1). The rate is
 * A0 (bytes 0..3) and C0 (bytes 16..19); the domain separators are added
 * to state byte 39, the low byte of E1.
 */
#include "lwc.h"
#include "internal.h"

/* rc0, rc1, rc2 (one bit per Simeck round, LSB first) and sc0, sc1, sc2
 * of each step (§2.3.2). */
static const uint8_t ace_rc[16][6] LWC_ROM = {
    {0x07, 0x53, 0x43, 0x50, 0x28, 0x14}, {0x0a, 0x5d, 0xe4, 0x5c, 0xae, 0x57},
    {0x9b, 0x49, 0x5e, 0x91, 0x48, 0x24}, {0xe0, 0x7f, 0xcc, 0x8d, 0xc6, 0x63},
    {0xd1, 0xbe, 0x32, 0x53, 0xa9, 0x54}, {0x1a, 0x1d, 0x4e, 0x60, 0x30, 0x18},
    {0x22, 0x28, 0x75, 0x68, 0x34, 0x9a}, {0xf7, 0x6c, 0x25, 0xe1, 0x70, 0x38},
    {0x62, 0x82, 0xfd, 0xf6, 0x7b, 0xbd}, {0x96, 0x47, 0xf9, 0x9d, 0xce, 0x67},
    {0x71, 0x6b, 0x76, 0x40, 0x20, 0x10}, {0xaa, 0x88, 0xa0, 0x4f, 0x27, 0x13},
    {0x2b, 0xdc, 0xb0, 0xbe, 0x5f, 0x2f}, {0xe9, 0x8b, 0x09, 0x5b, 0xad, 0xd6},
    {0xcf, 0x59, 0x1e, 0xe9, 0x74, 0xba}, {0xb7, 0xc6, 0xad, 0x7f, 0x3f, 0x1f},
};

/* The Simeck round function (x <<< 5) & x ^ (x <<< 1). */
#define SIMECK_F(x) ((ROL32(x, 5) & (x)) ^ ROL32(x, 1))

/* One Simeck box: 8 rounds on the halves (x, y) with round constant rc. */
static void ace_sb64(uint32_t *x, uint32_t *y, uint8_t rc) {
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

void ace_permute_state(ace_state *st) {
  uint32_t *s = st->w;
  uint8_t i;
  for (i = 0; i < 16; i++) {
    const uint8_t *k = ace_rc[i];
    uint32_t t0, t1;
    ace_sb64(&s[0], &s[1], LWC_ROM8(&k[0]));
    ace_sb64(&s[4], &s[5], LWC_ROM8(&k[1]));
    ace_sb64(&s[8], &s[9], LWC_ROM8(&k[2]));
    /* B ^= C ^ SC0, D ^= E ^ SC1, E ^= A ^ SC2, SCi = 0xffffffffffffff||sci */
    s[2] ^= s[4] ^ 0xffffffffu;
    s[3] ^= s[5] ^ 0xffffff00u ^ LWC_ROM8(&k[3]);
    s[6] ^= s[8] ^ 0xffffffffu;
    s[7] ^= s[9] ^ 0xffffff00u ^ LWC_ROM8(&k[4]);
    s[8] ^= s[0] ^ 0xffffffffu;
    s[9] ^= s[1] ^ 0xffffff00u ^ LWC_ROM8(&k[5]);
    /* pi: (A, B, C, D, E) <- (D, C, A, E, B) */
    t0 = s[0];
    t1 = s[1];
    s[0] = s[6];
    s[1] = s[7];
    s[6] = s[8];
    s[7] = s[9];
    s[8] = s[2];
    s[9] = s[3];
    s[2] = s[4];
    s[3] = s[5];
    s[4] = t0;
    s[5] = t1;
  }
}

void ace_permute(uint8_t b[40]) {
  ace_state s;
  uint8_t i;
  for (i = 0; i < 10; i++)
    s.w[i] = lwc_be32(b + 4 * i);
  ace_permute_state(&s);
  for (i = 0; i < 10; i++)
    lwc_put_be32(b + 4 * i, s.w[i]);
}

/* The rate: state words 0 (A0) and 4 (C0). */
static void ace_absorb(ace_state *s, const uint8_t *b) {
  s->w[0] ^= lwc_be32(b);
  s->w[4] ^= lwc_be32(b + 4);
}

static void ace_squeeze(const ace_state *s, uint8_t *b) {
  lwc_put_be32(b, s->w[0]);
  lwc_put_be32(b + 4, s->w[4]);
}

/* The key into the rate in two halves, each followed by the permutation
 * (closing the initialization §2.4.4 and the finalization §2.4.7). */
static void ace_absorb_key(ace_state *s, const uint8_t *k) {
  ace_absorb(s, k);
  ace_permute_state(s);
  ace_absorb(s, k + 8);
  ace_permute_state(s);
}

/* §2.4.3-2.4.4: A = K[0..63], B = N[0..63], C = K[64..127], D = 0,
 * E = N[64..127]; permute; absorb the key. */
void ace_aead_init(ace_state *s, const uint8_t *npub, const uint8_t *k) {
  s->w[0] = lwc_be32(k);
  s->w[1] = lwc_be32(k + 4);
  s->w[2] = lwc_be32(npub);
  s->w[3] = lwc_be32(npub + 4);
  s->w[4] = lwc_be32(k + 8);
  s->w[5] = lwc_be32(k + 12);
  s->w[6] = 0;
  s->w[7] = 0;
  s->w[8] = lwc_be32(npub + 8);
  s->w[9] = lwc_be32(npub + 12);
  ace_permute_state(s);
  ace_absorb_key(s, k);
}

/* Associated data (§2.4.5), only if there is any: padded 8-byte blocks
 * (0x80 then zeros), domain separator 1. */
static void ace_absorb_ad(ace_state *s, const uint8_t *ad, size_t adlen) {
  uint8_t blk[8];
  if (adlen == 0)
    return;
  for (; adlen >= 8; ad += 8, adlen -= 8) {
    ace_absorb(s, ad);
    s->w[9] ^= 0x01;
    ace_permute_state(s);
  }
  memset(blk, 0, 8);
  memcpy(blk, ad, adlen);
  blk[adlen] = 0x80;
  ace_absorb(s, blk);
  s->w[9] ^= 0x01;
  ace_permute_state(s);
}

/* The tag: the rate words A0, A1, C0, C1 after the finalization. */
static void ace_tag(ace_state *s, const uint8_t *k, uint8_t *tag) {
  ace_absorb_key(s, k);
  lwc_put_be32(tag, s->w[0]);
  lwc_put_be32(tag + 4, s->w[1]);
  lwc_put_be32(tag + 8, s->w[4]);
  lwc_put_be32(tag + 12, s->w[5]);
}

int ace_aead_encrypt(uint8_t *c, size_t *clen, const uint8_t *m, size_t mlen,
                     const uint8_t *ad, size_t adlen, const uint8_t *npub,
                     const uint8_t *k) {
  ace_state s;
  uint8_t blk[8];
  ace_aead_init(&s, npub, k);
  ace_absorb_ad(&s, ad, adlen);
  *clen = mlen + LWC_TAG_BYTES;
  for (; mlen >= 8; m += 8, c += 8, mlen -= 8) {
    ace_absorb(&s, m);
    ace_squeeze(&s, c);
    s.w[9] ^= 0x02;
    ace_permute_state(&s);
  }
  /* the last, padded block is always processed (§2.4.6) */
  memset(blk, 0, 8);
  memcpy(blk, m, mlen);
  blk[mlen] = 0x80;
  ace_absorb(&s, blk);
  ace_squeeze(&s, blk);
  memcpy(c, blk, mlen);
  s.w[9] ^= 0x02;
  ace_permute_state(&s);
  ace_tag(&s, k, c + mlen);
  return 0;
}

int ace_aead_decrypt(uint8_t *m, size_t *mlen, const uint8_t *c, size_t clen,
                     const uint8_t *ad, size_t adlen, const uint8_t *npub,
                     const uint8_t *k) {
  ace_state s;
  uint8_t blk[8], tag[16];
  uint8_t *m0 = m;
  size_t n, i;
  if (clen < LWC_TAG_BYTES)
    return -1;
  n = clen - LWC_TAG_BYTES;
  *mlen = n;
  ace_aead_init(&s, npub, k);
  ace_absorb_ad(&s, ad, adlen);
  for (; n >= 8; m += 8, c += 8, n -= 8) {
    uint32_t c0 = lwc_be32(c), c1 = lwc_be32(c + 4);
    lwc_put_be32(m, s.w[0] ^ c0);
    lwc_put_be32(m + 4, s.w[4] ^ c1);
    s.w[0] = c0;
    s.w[4] = c1;
    s.w[9] ^= 0x02;
    ace_permute_state(&s);
  }
  /* the last block: the rate's first n bytes become the ciphertext, the
   * padding byte is added after them */
  ace_squeeze(&s, blk);
  for (i = 0; i < n; i++) {
    uint8_t ci = c[i]; /* read before m[i] is written: m may be c */
    m[i] = (uint8_t)(blk[i] ^ ci);
    blk[i] = ci;
  }
  blk[n] ^= 0x80;
  s.w[0] = lwc_be32(blk);
  s.w[4] = lwc_be32(blk + 4);
  s.w[9] ^= 0x02;
  ace_permute_state(&s);
  ace_tag(&s, k, tag);
  return lwc_verify(c + n, tag, m0, *mlen);
}

const lwc_cipher lwc_ace = {ace_aead_encrypt, ace_aead_decrypt};
