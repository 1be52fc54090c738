// Package keys implements the IEEE 802.11 RSNA pairwise key hierarchy
// (IEEE Std 802.11-2020 §12.7.1) and the key suites that the 4-way
// handshake of package wifi runs with: the PMK from a passphrase, PRF-n,
// KDF-Hash-n, the PTK per AKM and the EAPOL-Key MIC per key descriptor
// version. Everything here is a pure function of its inputs, checked
// against the vectors of Annex J.
//
// Key hierarchy (§12.7.1):
//
//	PSK  = PBKDF2-HMAC-SHA-1(passphrase, SSID, 4096, 256)      (§J.4.1)
//	PRF-n(K, A, B) = L(HMAC-SHA-1(K, A || 0 || B || 0) || HMAC-SHA-1(K, A || 0 || B || 1) || ..., 0, n)
//	                                                             (§12.7.1.2)
//	KDF-Hash-n(K, label, context) = L(HMAC-Hash(K, 1 || label || context || n) ||
//	                                  HMAC-Hash(K, 2 || label || context || n) || ..., 0, n),
//	                                  counters and n 16-bit little-endian   (§12.7.1.7.2)
//	PTK  = PRF or KDF(PMK, "Pairwise key expansion",
//	         Min(AA, SPA) || Max(AA, SPA) || Min(ANonce, SNonce) || Max(ANonce, SNonce))
//	     = KCK || KEK || TK                                       (§12.7.1.3)
//
// The AKM fixes the PRF or KDF, the KCK and KEK lengths and the EAPOL-Key
// MIC (§12.7.3, Table 12-11); the pairwise cipher fixes the TK length
// (Table 12-8). The standard suites are
//
//	SuitePSK        AKM 00-0F-AC:2   PRF-384 (HMAC-SHA-1)  MIC HMAC-SHA-1-128 (descriptor version 2)
//	SuitePSKSHA256  AKM 00-0F-AC:6   KDF-SHA-256           MIC AES-128-CMAC (version 3)
//	SuiteSAE        AKM 00-0F-AC:8   KDF-SHA-256           MIC AES-128-CMAC (version 0, AKM-defined)
//	SuiteSAEExt     AKM 00-0F-AC:24  KDF-SHA-256, -384 or -512 and HMAC of the same hash,
//	                                 chosen by the SAE group (19, 20, 21), KCK = MIC = hash/2
//
// each with CCMP-128 (TK 16 octets) by default or any Cipher (GCMP-256: TK
// 32 octets). Key descriptor version 1 (HMAC-MD5 and RC4, for TKIP) is not
// implemented. Any KeySuite, such as LWCSuite over the lightweight sponge
// constructions of package wifi/lwc, plugs into the same handshake.
package keys
