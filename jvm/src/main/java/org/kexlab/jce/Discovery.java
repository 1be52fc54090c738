package org.kexlab.jce;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.interfaces.RSAKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.IvParameterSpec;

/**
 * What a provider's default transformation really is, found by
 * observation rather than documentation (the study's Tables 4 and 5).
 *
 * <p>For AES and DESede, getInstance(name) is initialised with a key and
 * no parameters, and:
 * <ul>
 * <li>the mode: an IV drawn by the provider (getIV) means a chaining mode;
 *   none, and two equal plaintext blocks giving equal ciphertext blocks,
 *   means ECB; the raw decryption of the ciphertext with the JDK's
 *   AES/CBC/NoPadding under the drawn IV confirms CBC;</li>
 * <li>the padding: the ciphertext lengths of 0, 1 and one block of
 *   plaintext (a block more for a block-aligned message: PKCS#5/7 or
 *   ISO 10126; refusal of a partial block: none); the padding bytes, read
 *   by decrypting with the JDK without padding, tell PKCS#5/7 (n bytes of
 *   value n) from ISO 10126 (random bytes, then n);</li>
 * <li>the key size: that of a key from the provider's KeyGenerator before
 *   any init.</li>
 * </ul>
 * For RSA, a one-byte message is encrypted with the public key of a
 * 2048-bit pair and the encoded message recovered with the JDK's raw RSA
 * (RSA/ECB/NoPadding): 00 02 … 00 m is PKCS#1 v1.5 encryption padding
 * (RFC 8017, 7.2), 00 01 FF… is the signature block type 1, the message
 * itself left-padded with zeros is no padding at all, anything else
 * (random-looking with a leading zero) is checked against OAEP with SHA-1
 * through the JDK. Whether two encryptions of the same message are equal
 * (deterministic) is recorded too, and the KeyPairGenerator's default
 * modulus size.
 */
public final class Discovery {
    private Discovery() {}

    /** The algorithms whose defaults are discovered. */
    public static final List<String> ALGORITHMS = List.of("AES", "DESede", "RSA");

    /** One row of the table. */
    public record Row(String provider, String algorithm, String implementedBy, String mode, String padding,
            String keySize, String deterministic, String lengths, String note) {
        /** The row as a JSON-ready map. */
        public Map<String, String> toMap() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("provider", provider);
            m.put("algorithm", algorithm);
            m.put("implementedBy", implementedBy);
            m.put("mode", mode);
            m.put("padding", padding);
            m.put("defaultKeySize", keySize);
            m.put("deterministic", deterministic);
            m.put("ciphertextLengths", lengths);
            m.put("note", note);
            return m;
        }
    }

    /** The table for every provider family and algorithm. */
    public static List<Row> table() {
        List<Row> out = new ArrayList<>();
        for (String f : Providers.FAMILIES) {
            for (String a : ALGORITHMS) {
                out.add(row(f, a));
            }
        }
        return out;
    }

    /** The row of one provider family and algorithm; never throws. */
    public static Row row(String family, String algorithm) {
        Cipher c;
        try {
            c = Work.first(new Case(family, algorithm, 0, algorithm, 0, Case.ENCRYPT), "Cipher " + algorithm,
                    p -> Cipher.getInstance(algorithm, p));
        } catch (NotSupportedException e) {
            return new Row(family, algorithm, "-", "not supported", "-", keyGenSize(family, algorithm), "-", "-",
                    e.getMessage());
        }
        try {
            return algorithm.equals("RSA") ? rsa(family, c) : symmetric(family, algorithm, c);
        } catch (GeneralSecurityException | RuntimeException e) {
            return new Row(family, algorithm, c.getProvider().getName(), "?", "?", keyGenSize(family, algorithm),
                    "?", "?", "observation failed: " + e);
        }
    }

    private static Row symmetric(String family, String alg, Cipher c) throws GeneralSecurityException {
        SecretKey key = Keys.secret(alg, alg.equals("AES") ? 128 : 168);
        int bs = c.getBlockSize();
        c.init(Cipher.ENCRYPT_MODE, key);
        byte[] iv = c.getIV();
        byte[] two = new byte[2 * bs];
        byte[] ct = c.doFinal(two);
        boolean repeats = Arrays.equals(Arrays.copyOfRange(ct, 0, bs), Arrays.copyOfRange(ct, bs, 2 * bs));
        c.init(Cipher.ENCRYPT_MODE, key);
        boolean det = Arrays.equals(ct, c.doFinal(two));
        String mode;
        if (iv == null && repeats) {
            mode = "ECB";
        } else if (iv != null) {
            mode = "IV of " + iv.length + " bytes";
            Cipher raw = Cipher.getInstance(alg + "/CBC/NoPadding", "SunJCE");
            raw.init(Cipher.DECRYPT_MODE, key, new IvParameterSpec(iv));
            byte[] pt = raw.doFinal(Arrays.copyOf(ct, 2 * bs));
            if (Arrays.equals(pt, two)) {
                mode = "CBC (random IV)";
            }
        } else {
            mode = "unknown (no IV, no block repetition)";
        }
        // Padding: lengths of 0, 1, bs and bs+1 bytes.
        List<String> lens = new ArrayList<>();
        int[] ns = {0, 1, bs, bs + 1};
        byte[] oneCt = null;
        boolean partialRefused = false;
        for (int n : ns) {
            c.init(Cipher.ENCRYPT_MODE, key);
            try {
                byte[] x = c.doFinal(new byte[n]);
                lens.add(n + "→" + x.length);
                if (n == 1) {
                    oneCt = x;
                    iv = c.getIV();
                }
            } catch (GeneralSecurityException e) {
                lens.add(n + "→refused");
                if (n == 1) {
                    partialRefused = true;
                }
            }
        }
        String padding;
        if (partialRefused) {
            padding = "none (partial block refused)";
        } else if (oneCt != null && oneCt.length == bs) {
            padding = padBytes(alg, key, iv, oneCt, bs);
        } else {
            padding = "unknown";
        }
        return new Row(family, alg, c.getProvider().getName(), mode, padding, keyGenSize(family, alg),
                det ? "yes" : "no", String.join(", ", lens), "");
    }

    /** Reads the padding of a one-byte message's single ciphertext block. */
    private static String padBytes(String alg, SecretKey key, byte[] iv, byte[] ct, int bs)
            throws GeneralSecurityException {
        Cipher raw = Cipher.getInstance(alg + (iv == null ? "/ECB/NoPadding" : "/CBC/NoPadding"), "SunJCE");
        if (iv == null) {
            raw.init(Cipher.DECRYPT_MODE, key);
        } else {
            raw.init(Cipher.DECRYPT_MODE, key, new IvParameterSpec(iv));
        }
        byte[] pt = raw.doFinal(ct);
        int n = pt[bs - 1] & 0xff;
        if (n != bs - 1) {
            return "unknown (last byte " + n + ")";
        }
        boolean pkcs = true, zeros = true;
        for (int i = 1; i < bs - 1; i++) {
            pkcs &= (pt[i] & 0xff) == n;
            zeros &= pt[i] == 0;
        }
        if (pkcs) {
            return "PKCS#5/PKCS#7";
        }
        return zeros ? "ANSI X9.23 (zeros, then length)" : "ISO 10126 (random, then length)";
    }

    private static Row rsa(String family, Cipher c) throws GeneralSecurityException {
        KeyPair kp = Keys.pair("RSA", 2048);
        Provider p = c.getProvider();
        Key pub = Keys.translate(p, kp.getPublic());
        int k = ((RSAKey) kp.getPublic()).getModulus().bitLength() / 8;
        byte[] m = {0x42};
        c.init(Cipher.ENCRYPT_MODE, pub);
        byte[] ct = c.doFinal(m);
        c.init(Cipher.ENCRYPT_MODE, pub);
        boolean det = Arrays.equals(ct, c.doFinal(m));
        Cipher raw = Cipher.getInstance("RSA/ECB/NoPadding", "SunJCE");
        raw.init(Cipher.DECRYPT_MODE, kp.getPrivate());
        byte[] em = raw.doFinal(ct);
        if (em.length < k) {
            byte[] padded = new byte[k];
            System.arraycopy(em, 0, padded, k - em.length, em.length);
            em = padded;
        }
        String padding;
        if (em[0] == 0 && em[1] == 2 && em[k - 2] == 0 && em[k - 1] == 0x42) {
            padding = "PKCS#1 v1.5 (type 2)";
        } else if (em[0] == 0 && em[1] == 1) {
            padding = "PKCS#1 v1.5 type 1 (signature block!)";
        } else if (em[k - 1] == 0x42 && allZero(em, 0, k - 1)) {
            padding = "none (raw RSA)";
        } else {
            padding = "unknown";
            for (String oaep : new String[] {"OAEPWithSHA-1AndMGF1Padding", "OAEPWithSHA-256AndMGF1Padding"}) {
                try {
                    Cipher o = Cipher.getInstance("RSA/ECB/" + oaep, "SunJCE");
                    o.init(Cipher.DECRYPT_MODE, kp.getPrivate());
                    if (Arrays.equals(o.doFinal(ct), m)) {
                        padding = oaep.replace("With", " with ").replace("AndMGF1Padding", ", MGF1 SHA-1");
                        break;
                    }
                } catch (GeneralSecurityException e) {
                    // not this one
                }
            }
        }
        // Longest message accepted: k-11 for PKCS#1 v1.5.
        String maxLen = "?";
        for (int n : new int[] {k, k - 1, k - 11, k - 42, k - 66}) {
            try {
                c.init(Cipher.ENCRYPT_MODE, pub);
                byte[] x = new byte[n];
                x[0] = 1;
                c.doFinal(x);
                maxLen = Integer.toString(n);
                break;
            } catch (GeneralSecurityException | RuntimeException e) {
                // too long
            }
        }
        return new Row(family, "RSA", p.getName(), "ECB (single block)", padding, keyGenSize(family, "RSA"),
                det ? "yes" : "no", "1→" + ct.length + ", max message " + maxLen + " of " + k, "");
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** The size of a key from the family's generator before any init. */
    static String keyGenSize(String family, String alg) {
        try {
            if (alg.equals("RSA")) {
                KeyPairGenerator g = Work.first(new Case(family, alg, 0, "KeyPairGenerator", 0, Case.KEYGEN),
                        "KeyPairGenerator " + alg, p -> KeyPairGenerator.getInstance(alg, p));
                return Integer.toString(((RSAKey) g.generateKeyPair().getPublic()).getModulus().bitLength());
            }
            KeyGenerator g = Work.first(new Case(family, alg, 0, "KeyGenerator", 0, Case.KEYGEN),
                    "KeyGenerator " + alg, p -> KeyGenerator.getInstance(alg, p));
            int bits = g.generateKey().getEncoded().length * 8;
            if (alg.equals("DESede")) {
                byte[] k = g.generateKey().getEncoded();
                boolean twoKey = Arrays.equals(Arrays.copyOfRange(k, 0, 8), Arrays.copyOfRange(k, 16, 24));
                return bits + " bits encoded (" + (twoKey ? "112" : "168") + " effective)";
            }
            return Integer.toString(bits);
        } catch (NotSupportedException e) {
            return "no generator";
        } catch (RuntimeException e) {
            return "failed: " + e;
        }
    }

    /** The table as aligned text. */
    public static String text(List<Row> rows) {
        List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {"provider", "algorithm", "implemented by", "mode", "padding", "default key",
            "deterministic", "ciphertext lengths", "note"});
        for (Row r : rows) {
            cells.add(new String[] {r.provider(), r.algorithm(), r.implementedBy(), r.mode(), r.padding(),
                r.keySize(), r.deterministic(), r.lengths(), r.note()});
        }
        return Text.table(cells);
    }
}
