/*
 * ACE-H-256 (ACE round-2 submission §2.5), ported from wifi/lwc/ace: the
 * state with bytes 8, 9, 10 set to 0x80, 0x40, 0x40 is permuted once;
 * the message, padded with 0x80 and zeros to a multiple of 8 bytes, is
 * absorbed 8 bytes per permutation into the rate (A0, C0); four 8-byte
 * blocks are squeezed with a permutation between each.
 */
#include "lwc.h"
#include "internal.h"

static void ace_hash_absorb(ace_state *s, const uint8_t *b) {
  s->w[0] ^= lwc_be32(b);
  s->w[4] ^= lwc_be32(b + 4);
  ace_permute_state(s);
}

void ace_hash(uint8_t out[32], const uint8_t *in, size_t len) {
  ace_state s;
  uint8_t blk[8], i;
  memset(&s, 0, sizeof s);
  s.w[2] = 0x80404000u;
  ace_permute_state(&s);
  for (; len >= 8; in += 8, len -= 8)
    ace_hash_absorb(&s, in);
  memset(blk, 0, 8);
  memcpy(blk, in, len);
  blk[len] = 0x80;
  ace_hash_absorb(&s, blk);
  for (i = 0; i < 4; i++) {
    if (i > 0)
      ace_permute_state(&s);
    lwc_put_be32(out + 8 * i, s.w[0]);
    lwc_put_be32(out + 8 * i + 4, s.w[4]);
  }
}
