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
        // Key generation.
        for (int k : new int[] {128, 192, 256}) {
            out.add(new Case(p, "AES", k, "KeyGenerator", 0, Case.KEYGEN));
        }
        for (int k : new int[] {112, 168}) {
            out.add(new Case(p, "DESede", k, "KeyGenerator", 0, Case.KEYGEN));
        }
        out.add(new Case(p, "HmacSHA256", 256, "KeyGenerator", 0, Case.KEYGEN));
        for (int k : new int[] {2048, 3072, 4096}) {
            out.add(new Case(p, "RSA", k, "KeyPairGenerator", 0, Case.KEYGEN));
        }
        out.add(new Case(p, "DSA", 2048, "KeyPairGenerator", 0, Case.KEYGEN));
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
        for (int k : new int[] {2048, 3072, 4096}) {
            for (String t : new String[] {"RSA", RSA_PKCS1, RSA_OAEP}) {
                out.add(new Case(p, "RSA", k, t, n, Case.ENCRYPT));
                out.add(new Case(p, "RSA", k, t, n, Case.DECRYPT));
            }
        }
        // Signatures.
        for (int k : new int[] {2048, 3072, 4096}) {
            for (String t : new String[] {"SHA256withRSA", "RSASSA-PSS"}) {
                out.add(new Case(p, "RSA", k, t, n, Case.SIGN));
                out.add(new Case(p, "RSA", k, t, n, Case.VERIFY));
            }
        }
        out.add(new Case(p, "DSA", 2048, "SHA256withDSA", n, Case.SIGN));
        out.add(new Case(p, "DSA", 2048, "SHA256withDSA", n, Case.VERIFY));
        out.add(new Case(p, "EC", 256, "SHA256withECDSA", n, Case.SIGN));
        out.add(new Case(p, "EC", 256, "SHA256withECDSA", n, Case.VERIFY));
        out.add(new Case(p, "EC", 384, "SHA384withECDSA", n, Case.SIGN));
        out.add(new Case(p, "EC", 384, "SHA384withECDSA", n, Case.VERIFY));
        // MACs, keyed with a key as long as the hash output (RFC 2104, 3).
        String[] macs = {"HmacMD5", "HmacSHA1", "HmacSHA256", "HmacSHA384", "HmacSHA512"};
        int[] macKeys = {128, 160, 256, 384, 512};
        for (int i = 0; i < macs.length; i++) {
            out.add(new Case(p, macs[i], macKeys[i], macs[i], n, Case.MAC));
        }
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
