// Package wifi implements the IEEE 802.11 4-way handshake (IEEE Std
// 802.11-2020 §12.7.6), with SAE (§12.4, package pake/dragonfly/sae) in
// front of it for WPA3: RunSAE derives the PMK, an Authenticator and a
// Supplicant turn it into a PTK and deliver the GTK.
//
// The cryptography of the handshake is a KeySuite of package wifi/keys
// (the key hierarchy of §12.7.1: PMK, PRF, KDF, PTK per AKM, MIC per key
// descriptor version), chosen in Config; the frames are EAPOL-Key frames
// of package wifi/eapol (§12.7.2):
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
