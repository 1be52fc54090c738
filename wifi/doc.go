// Package wifi implements the IEEE 802.11 RSNA key hierarchy and 4-way
// handshake (IEEE Std 802.11-2020 §12.7), with SAE (§12.4, package
// pake/dragonfly/sae) in front of it for WPA3.
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
// implemented. Any KeySuite, such as the lightweight sponge constructions
// of package wifi/lwc, plugs into the same handshake.
//
// The 4-way handshake (§12.7.6) exchanges EAPOL-Key frames (package
// wifi/eapol):
//
//	msg 1  A -> S  Pairwise|Ack, ANonce, replay counter r
//	msg 2  S -> A  Pairwise|MIC, SNonce, r, key data = supplicant's RSNE, MIC(KCK)
//	msg 3  A -> S  Pairwise|Install|Ack|MIC|Secure|Encrypted, ANonce, r+1,
//	               key data = AES-KW(KEK, RSNE || GTK KDE), MIC(KCK)
//	msg 4  S -> A  Pairwise|MIC|Secure, r+1, MIC(KCK)
//
// The MIC is computed over the whole EAPOL frame with the MIC field zero.
// Authenticator and Supplicant are driven by messages; they hold no timers:
// the caller calls Authenticator.Retransmit when its timer expires. A
// frame that fails a check is discarded with an error and changes no state,
// as §12.7.6 asks (a frame with a bad MIC or replay counter is silently
// dropped); only exhausting the retries fails the handshake.
package wifi
