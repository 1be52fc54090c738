/*
 * The talk's sponge KDF and MIC (Yi, Gong, Mandal, NIST LWC workshop
 * 2019) with the input mapping of wifi/lwc (see its package doc): one AE
 * encryption each.
 */
#include "lwc.h"
#include "internal.h"

/* bytes.Compare(a, b) > 0 for public a and b of n bytes */
static int lwc_greater(const uint8_t *a, const uint8_t *b, uint8_t n) {
  uint8_t i;
  for (i = 0; i < n; i++)
    if (a[i] != b[i])
      return a[i] > b[i];
  return 0;
}

void lwc_kdf(const lwc_cipher *c, uint8_t ptk[LWC_PTK_BYTES],
             const uint8_t pmk[LWC_PMK_BYTES], const uint8_t aa[6],
             const uint8_t spa[6], const uint8_t anonce[32],
             const uint8_t snonce[32]) {
  uint8_t nonce[16], buf[LWC_PTK_BYTES + LWC_TAG_BYTES];
  const uint8_t *a1 = anonce, *a2 = snonce, *m1 = aa, *m2 = spa;
  size_t clen;
  if (lwc_greater(a1, a2, 32)) {
    a1 = snonce;
    a2 = anonce;
  }
  if (lwc_greater(m1, m2, 6)) {
    m1 = spa;
    m2 = aa;
  }
  memcpy(nonce, a1, 8);
  memcpy(nonce + 8, a2, 8);
  memcpy(buf, pmk + 16, 16);
  memcpy(buf + 16, m1, 6);
  memcpy(buf + 22, m2, 6);
  memcpy(buf + 28, a1 + 8, 8);
  memcpy(buf + 36, a2 + 8, 8);
  buf[44] = 'L';
  buf[45] = 'W';
  buf[46] = 'C';
  buf[47] = 0;
  c->encrypt(buf, &clen, buf, LWC_PTK_BYTES, buf, 0, nonce, pmk);
  memcpy(ptk, buf, LWC_PTK_BYTES);
  memset(buf, 0, sizeof buf);
}

void lwc_mic(const lwc_cipher *c, uint8_t mic[LWC_TAG_BYTES],
             const uint8_t kck[LWC_KEY_BYTES], const uint8_t *frame,
             size_t len) {
  static const uint8_t zero[LWC_NONCE_BYTES];
  size_t clen;
  c->encrypt(mic, &clen, zero, 0, frame, len, zero, kck);
}
