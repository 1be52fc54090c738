/*
 * lwc.h: ACE-AE-128, ACE-H-256, SPIX-AE-128, WAGE-AE-128 and Ascon-AEAD128
 * in portable C99 for microcontrollers, ported from kexlab's Go reference
 * packages wifi/lwc/{ace,spix,wage,ascon} (which cite the specifications),
 * and the talk's sponge KDF and MIC exactly as wifi/lwc defines them.
 *
 * The AEAD functions follow the NIST LWC API (without the unused nsec):
 * 16-byte key, nonce and tag; the ciphertext is the encrypted message
 * followed by the tag (clen = mlen + 16). Encryption may be in place
 * (c == m). Decryption returns 0, or -1 if clen < 16 or the tag does not
 * verify (compared in constant time), and then zeroes m. Constant time:
 * no branch and no memory index depends on a key, a state or a message;
 * only lengths are public.
 */
#ifndef KEXLAB_LWC_H
#define KEXLAB_LWC_H

#include <stddef.h>
#include <stdint.h>

#define LWC_KEY_BYTES 16
#define LWC_NONCE_BYTES 16
#define LWC_TAG_BYTES 16

/* ACE (ACE submission §2.3-2.5): the state is ten 32-bit words A0 A1 B0
 * B1 C0 C1 D0 D1 E0 E1, each the big-endian image of 4 state bytes. */
typedef struct { uint32_t w[10]; } ace_state;
void ace_permute_state(ace_state *s);
void ace_permute(uint8_t s[40]); /* the bytes of the KATs' state order */
void ace_aead_init(ace_state *s, const uint8_t *npub, const uint8_t *k);
int ace_aead_encrypt(uint8_t *c, size_t *clen, const uint8_t *m, size_t mlen,
                     const uint8_t *ad, size_t adlen, const uint8_t *npub,
                     const uint8_t *k);
int ace_aead_decrypt(uint8_t *m, size_t *mlen, const uint8_t *c, size_t clen,
                     const uint8_t *ad, size_t adlen, const uint8_t *npub,
                     const uint8_t *k);
void ace_hash(uint8_t out[32], const uint8_t *in, size_t len);

/* SPIX over sLiSCP-light-256: eight 32-bit words, big-endian images of
 * state bytes 4i..4i+3. spix_permute_state runs `steps` steps (18 at
 * initialization and finalization, 9 between data blocks). */
typedef struct { uint32_t w[8]; } spix_state;
void spix_permute_state(spix_state *s, uint8_t steps);
void spix_permute(uint8_t s[32]); /* the full 18 steps */
void spix_aead_init(spix_state *s, const uint8_t *npub, const uint8_t *k);
int spix_aead_encrypt(uint8_t *c, size_t *clen, const uint8_t *m, size_t mlen,
                      const uint8_t *ad, size_t adlen, const uint8_t *npub,
                      const uint8_t *k);
int spix_aead_decrypt(uint8_t *m, size_t *mlen, const uint8_t *c, size_t clen,
                      const uint8_t *ad, size_t adlen, const uint8_t *npub,
                      const uint8_t *k);

/* WAGE: 37 cells of GF(2^7), one per byte (low 7 bits). */
typedef struct { uint8_t s[37]; } wage_state;
void wage_permute(uint8_t s[37]);
void wage_aead_init(wage_state *s, const uint8_t *npub, const uint8_t *k);
int wage_aead_encrypt(uint8_t *c, size_t *clen, const uint8_t *m, size_t mlen,
                      const uint8_t *ad, size_t adlen, const uint8_t *npub,
                      const uint8_t *k);
int wage_aead_decrypt(uint8_t *m, size_t *mlen, const uint8_t *c, size_t clen,
                      const uint8_t *ad, size_t adlen, const uint8_t *npub,
                      const uint8_t *k);

/* Ascon (NIST SP 800-232): five 64-bit words S0..S4, each kept as two
 * 32-bit halves w[2i] (low) and w[2i+1] (high). */
typedef struct { uint32_t w[10]; } ascon_state;
void ascon_permute_state(ascon_state *s, uint8_t rounds);
void ascon_permute(uint8_t s[40]); /* Ascon-p[12], little-endian words */
void ascon_aead_init(ascon_state *s, const uint8_t *npub, const uint8_t *k);
int ascon_aead_encrypt(uint8_t *c, size_t *clen, const uint8_t *m,
                       size_t mlen, const uint8_t *ad, size_t adlen,
                       const uint8_t *npub, const uint8_t *k);
int ascon_aead_decrypt(uint8_t *m, size_t *mlen, const uint8_t *c,
                       size_t clen, const uint8_t *ad, size_t adlen,
                       const uint8_t *npub, const uint8_t *k);

/* One cipher as the handshake uses it (wifi/lwc.Cipher). */
typedef int (*lwc_encrypt_fn)(uint8_t *, size_t *, const uint8_t *, size_t,
                              const uint8_t *, size_t, const uint8_t *,
                              const uint8_t *);
typedef struct {
  lwc_encrypt_fn encrypt;
  lwc_encrypt_fn decrypt; /* same shape, roles of m and c swapped */
} lwc_cipher;
extern const lwc_cipher lwc_ace, lwc_spix, lwc_wage, lwc_ascon;

#define LWC_PMK_BYTES 32
#define LWC_PTK_BYTES 48

/* lwc_kdf derives KCK || KEK || TK (48 octets) as wifi/lwc.Cipher.KDF:
 * key = PMK[0:16], nonce = A1[0:8] || A2[0:8], message = PMK[16:32] ||
 * Min(AA,SPA) || Max(AA,SPA) || A1[8:16] || A2[8:16] || "LWC" 0x00, no
 * AD; the ciphertext without the tag. A1, A2 = Min, Max(ANonce, SNonce).
 * The addresses and nonces travel in clear, so ordering them may branch. */
void lwc_kdf(const lwc_cipher *c, uint8_t ptk[LWC_PTK_BYTES],
             const uint8_t pmk[LWC_PMK_BYTES], const uint8_t aa[6],
             const uint8_t spa[6], const uint8_t anonce[32],
             const uint8_t snonce[32]);
/* lwc_mic is wifi/lwc.Cipher.MIC: the tag of AE-Encrypt(KCK, 0^128,
 * AD = frame, M = empty). */
void lwc_mic(const lwc_cipher *c, uint8_t mic[LWC_TAG_BYTES],
             const uint8_t kck[LWC_KEY_BYTES], const uint8_t *frame,
             size_t len);

#endif
