package org.kexlab.jce;

import java.util.ArrayList;
import java.util.List;

/**
 * The cases of the study (issue 6): the primitives of Montenegro, Pinto
 * and Fuentes (IEEE Access 2018) at their 100-byte message, for every
 * provider family, plus a sweep of message lengths that the study left as
 * future work.
 */
public final class Catalog {
    private Catalog() {}

    /** The message length of the original study. */
    public static final int STUDY_LENGTH = 100;

    /** The length sweep: 16 B … 1 MiB. */
    public static final int[] SWEEP = {16, 256, 4096, 65536, 1 << 20};

    /** RSA and DSA key sizes (RSA 512 insecure, measured where allowed). */
    public static final int[] RSA_SIZES = {512, 1024, 2048, 3072, 4096}, DSA_SIZES = {1024, 2048};

    /**
     * The message length of RSA encryption (and NONEwithRSA) with a k-bit
     * modulus: STUDY_LENGTH, or the most the padding leaves room for
     * (k/8 − 11 bytes for PKCS#1 v1.5 and the default, k/8 − 66 for OAEP
     * with SHA-256).
     */
    static int rsaLength(int k, String t) {
        int room = k / 8 - (t.equals(RSA_OAEP) ? 66 : 11);
        return Math.min(STUDY_LENGTH, room);
    }

    /** The HMACs, keyed with keys as long as their output. */
    public static final String[] MACS = {"HmacMD5", "HmacSHA1", "HmacSHA224", "HmacSHA256", "HmacSHA384", "HmacSHA512"};
    static final int[] MAC_KEYS = {128, 160, 224, 256, 384, 512};

    /** OID aliases of SHA256withRSA and HmacSHA256 (RFC 8017 A.2.4, RFC 4231 3.1). */
    public static final String OID_SHA256_RSA = "1.2.840.113549.1.1.11", OID_HMAC_SHA256 = "1.2.840.113549.2.9";

    /** The alias pairs measured as A/A controls: alias name → canonical name. */
    public static final java.util.Map<String, String> ALIASES = java.util.Map.of(OID_SHA256_RSA, "SHA256withRSA",
            OID_HMAC_SHA256, "HmacSHA256");

    /** The recommended symmetric transformations compared with the defaults. */
    public static final String AES_CBC = "AES/CBC/PKCS5Padding", AES_GCM = "AES/GCM/NoPadding",
            DESEDE_CBC = "DESede/CBC/PKCS5Padding";

    /** RSA encryption transformations: the default and the two recommended paddings. */
    public static final String RSA_PKCS1 = "RSA/ECB/PKCS1Padding",
            RSA_OAEP = "RSA/ECB/OAEPWithSHA-256AndMGF1Padding";

    /**
     * Every case at the study's length and, with sweep, the length sweep;
     * the providers of each case are adjacent, so that a run cut short
     * has measured the same cases of every provider.
     */
    public static List<Case> all(boolean sweep) {
        List<List<Case>> per = new ArrayList<>();
        for (String p : Providers.FAMILIES) {
            per.add(forProvider(p, sweep));
        }
        List<Case> out = new ArrayList<>();
        for (int i = 0; i < per.get(0).size(); i++) {
            for (List<Case> l : per) {
                out.add(l.get(i));
            }
        }
        return out;
    }

    /** The cases of one provider family. */
    public static List<Case> forProvider(String p, boolean sweep) {
        List<Case> out = new ArrayList<>();
        final int n = STUDY_LENGTH;
        // Key generation. RSA 512 is insecure (factored in 1999): measured
        // where a provider still allows it, as the paper did.
        for (int k : new int[] {128, 192, 256}) {
            out.add(new Case(p, "AES", k, "KeyGenerator", 0, Case.KEYGEN));
        }
        for (int k : new int[] {112, 168}) {
            out.add(new Case(p, "DESede", k, "KeyGenerator", 0, Case.KEYGEN));
        }
        for (int i = 0; i < MACS.length; i++) {
            out.add(new Case(p, MACS[i], MAC_KEYS[i], "KeyGenerator", 0, Case.KEYGEN));
        }
        for (int k : RSA_SIZES) {
            out.add(new Case(p, "RSA", k, "KeyPairGenerator", 0, Case.KEYGEN));
        }
        for (int k : DSA_SIZES) {
            // In fixed domain parameters; with the provider's own parameter
            // handling (initialize(size): precomputed or generated); and
            // with freshly generated parameters (the paper's BC 6.6 s).
            out.add(new Case(p, "DSA", k, "KeyPairGenerator", 0, Case.KEYGEN));
            out.add(new Case(p, "DSA", k, KeyGenWork.BY_SIZE, 0, Case.KEYGEN));
            out.add(new Case(p, "DSA", k, KeyGenWork.FRESH_PARAMS, 0, Case.KEYGEN));
        }
        for (int k : new int[] {256, 384}) {
            out.add(new Case(p, "EC", k, "KeyPairGenerator", 0, Case.KEYGEN));
        }
        // Symmetric encryption: default transformation vs recommended.
        for (int k : new int[] {128, 192, 256}) {
            for (String t : new String[] {"AES", AES_CBC, AES_GCM}) {
                out.add(new Case(p, "AES", k, t, n, Case.ENCRYPT));
                out.add(new Case(p, "AES", k, t, n, Case.DECRYPT));
            }
        }
        for (int k : new int[] {112, 168}) {
            for (String t : new String[] {"DESede", DESEDE_CBC}) {
                out.add(new Case(p, "DESede", k, t, n, Case.ENCRYPT));
                out.add(new Case(p, "DESede", k, t, n, Case.DECRYPT));
            }
        }
        // RSA encryption.
        // The message is the study's 100 bytes where the modulus holds it,
        // else as many as fit (rsaLength): RSA-512 takes 53 bytes under
        // PKCS#1 v1.5, RSA-1024 62 under OAEP with SHA-256, and RSA-512 none
        // under OAEP (RFC 8017, 7.1.1: k ≥ 2·32 + 2 bytes): no case.
        for (int k : RSA_SIZES) {
            for (String t : new String[] {"RSA", RSA_PKCS1, RSA_OAEP}) {
                if (k == 512 && t.equals(RSA_OAEP)) {
                    continue;
                }
                int len = rsaLength(k, t);
                out.add(new Case(p, "RSA", k, t, len, Case.ENCRYPT));
                out.add(new Case(p, "RSA", k, t, len, Case.DECRYPT));
            }
        }
        // Signatures: the paper's defaults (NONEwith…, SHA1with…) beside
        // the recommended ones. NONEwithDSA signs a 20-byte digest.
        // NONEwithRSA signs the message itself (at most k/8 − 11 bytes);
        // PSS with SHA-256 and a 32-byte salt needs more than 512 bits.
        for (int k : RSA_SIZES) {
            for (String t : new String[] {"NONEwithRSA", "SHA1withRSA", "SHA256withRSA", "RSASSA-PSS"}) {
                if (k == 512 && t.equals("RSASSA-PSS")) {
                    continue;
                }
                int len = t.startsWith("NONE") ? rsaLength(k, RSA_PKCS1) : n;
                out.add(new Case(p, "RSA", k, t, len, Case.SIGN));
                out.add(new Case(p, "RSA", k, t, len, Case.VERIFY));
            }
        }
        for (int k : DSA_SIZES) {
            for (String t : new String[] {"NONEwithDSA", "SHA1withDSA", "SHA256withDSA"}) {
                int len = t.startsWith("NONE") ? 20 : n;
                out.add(new Case(p, "DSA", k, t, len, Case.SIGN));
                out.add(new Case(p, "DSA", k, t, len, Case.VERIFY));
            }
        }
        out.add(new Case(p, "EC", 256, "SHA256withECDSA", n, Case.SIGN));
        out.add(new Case(p, "EC", 256, "SHA256withECDSA", n, Case.VERIFY));
        out.add(new Case(p, "EC", 384, "SHA384withECDSA", n, Case.SIGN));
        out.add(new Case(p, "EC", 384, "SHA384withECDSA", n, Case.VERIFY));
        // MACs, keyed with a key as long as the hash output (RFC 2104, 3):
        // every digest length (the paper's Table 31).
        for (int i = 0; i < MACS.length; i++) {
            out.add(new Case(p, MACS[i], MAC_KEYS[i], MACS[i], n, Case.MAC));
        }
        // A/A controls: the same implementation under a second name (an
        // OID alias), measured like any case; Study keeps a pair as A/A
        // only when the provider maps both names to one service.
        out.add(new Case(p, "RSA", 2048, OID_SHA256_RSA, n, Case.SIGN));
        out.add(new Case(p, "HmacSHA256", 256, OID_HMAC_SHA256, n, Case.MAC));
        if (sweep) {
            for (int len : SWEEP) {
                out.add(new Case(p, "AES", 128, AES_CBC, len, Case.ENCRYPT));
                out.add(new Case(p, "AES", 128, AES_GCM, len, Case.ENCRYPT));
                out.add(new Case(p, "HmacSHA256", 256, "HmacSHA256", len, Case.MAC));
            }
        }
        return out;
    }
}
