/* internal.h: helpers shared by the cipher sources (not part of the API). */
#ifndef KEXLAB_LWC_INTERNAL_H
#define KEXLAB_LWC_INTERNAL_H

#include <stdint.h>
#include <string.h>

/* Constant tables live in flash on AVR (read with LPM), elsewhere in
 * ordinary read-only memory. Only public constants are tables. */
#if defined(__AVR__)
#include <avr/pgmspace.h>
#define LWC_ROM PROGMEM
#define LWC_ROM8(p) pgm_read_byte(p)
#define LWC_ROM32(p) pgm_read_dword(p)
#else
#define LWC_ROM
#define LWC_ROM8(p) (*(const uint8_t *)(p))
#define LWC_ROM32(p) (*(const uint32_t *)(p))
#endif

#define ROL32(x, n) ((uint32_t)((x) << (n)) | ((x) >> (32 - (n))))

static inline uint32_t lwc_be32(const uint8_t *b) {
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
         b[3];
}

static inline void lwc_put_be32(uint8_t *b, uint32_t w) {
  b[0] = (uint8_t)(w >> 24);
  b[1] = (uint8_t)(w >> 16);
  b[2] = (uint8_t)(w >> 8);
  b[3] = (uint8_t)w;
}

static inline uint32_t lwc_le32(const uint8_t *b) {
  return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 |
         b[0];
}

static inline void lwc_put_le32(uint8_t *b, uint32_t w) {
  b[0] = (uint8_t)w;
  b[1] = (uint8_t)(w >> 8);
  b[2] = (uint8_t)(w >> 16);
  b[3] = (uint8_t)(w >> 24);
}

/* lwc_verify compares two tags in constant time: 0 if equal, else -1. If
 * they differ it zeroes the n bytes of m (no unauthenticated plaintext is
 * released). */
static inline int lwc_verify(const uint8_t *want, const uint8_t *got,
                             uint8_t *m, size_t n) {
  uint8_t d = 0;
  uint8_t i;
  for (i = 0; i < 16; i++)
    d |= (uint8_t)(want[i] ^ got[i]);
  /* ok = 0xff if d == 0, else 0x00, without a branch on d */
  uint8_t ok = (uint8_t)((uint16_t)((uint16_t)d - 1u) >> 8);
  size_t j;
  for (j = 0; j < n; j++)
    m[j] &= ok;
  return ok ? 0 : -1; /* the verdict itself is public */
}

#endif
