package org.kexlab.jce;

import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyPair;
import java.security.Provider;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;

/**
 * Encryption and decryption with a Cipher (AES, DESede, RSA).
 *
 * <p>Every operation initialises the cipher and encrypts (or decrypts) the
 * whole message with doFinal, as a message-at-a-time application does:
 * the recommended modes need a fresh IV per message (GCM refuses a
 * repeated one), so init is part of every operation, and the default
 * transformations are measured the same way. IVs are a fixed base XORed
 * with a counter (unique, as GCM requires; a real CBC sender would draw a
 * random IV). A default transformation gets no parameters: whatever the
 * provider does then (ECB, or an IV it draws itself) is what is measured.
 * OAEP uses SHA-256 and MGF1 with SHA-256 (RFC 8017, 7.1), passed
 * explicitly because providers disagree on the MGF1 hash that the name
 * OAEPWithSHA-256AndMGF1Padding implies.
 */
public final class CipherWork extends Work {
    /** The OAEP parameters of the study. */
    public static final OAEPParameterSpec OAEP_SHA256 = new OAEPParameterSpec("SHA-256", "MGF1",
            MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT);

    private final Cipher enc, dec;
    private final Key encKey, decKey;
    private final boolean gcm, oaep, encrypting;
    private final byte[] ivBase;
    private long counter;
    private AlgorithmParameterSpec lastSpec;
    private AlgorithmParameters lastParams;
    private final AlgorithmParameterSpec decSpec;
    private final AlgorithmParameters decParams;
    /** The ciphertext of {@link #data} that the decrypt operation decrypts. */
    public final byte[] ciphertext;

    static CipherWork prepare(Case c) throws NotSupportedException {
        return first(c, "Cipher " + c.transformation() + " with a " + c.keySize() + "-bit key",
                p -> new CipherWork(c, p));
    }

    private CipherWork(Case c, Provider p) throws GeneralSecurityException {
        super(c, p);
        String t = c.transformation();
        if (c.algorithm().equals("RSA")) {
            KeyPair kp = Keys.pair("RSA", c.keySize());
            encKey = Keys.translate(p, kp.getPublic());
            decKey = Keys.translate(p, kp.getPrivate());
        } else {
            encKey = decKey = Keys.secret(c.algorithm(), c.keySize());
        }
        enc = instance(t, p);
        dec = instance(t, p);
        gcm = t.contains("/GCM/");
        oaep = t.contains("OAEP");
        encrypting = c.op().equals(Case.ENCRYPT);
        int ivLen = gcm ? 12 : t.contains("/CBC/") ? enc.getBlockSize() : 0;
        ivBase = ivLen > 0 ? Keys.bytes("iv", ivLen) : null;
        ciphertext = encrypt();
        decSpec = lastSpec;
        decParams = lastParams;
        decrypt(); // the decryption side must work too
    }

    /**
     * Cipher.getInstance, falling back for OAEP to the generic
     * "RSA/ECB/OAEPPadding": the explicit parameters define OAEP fully.
     */
    private static Cipher instance(String t, Provider p) throws GeneralSecurityException {
        try {
            return Cipher.getInstance(t, p);
        } catch (GeneralSecurityException e) {
            if (t.contains("OAEPWith")) {
                return Cipher.getInstance("RSA/ECB/OAEPPadding", p);
            }
            throw e;
        }
    }

    private AlgorithmParameterSpec nextSpec() {
        if (oaep) {
            return OAEP_SHA256;
        }
        if (ivBase == null) {
            return null;
        }
        byte[] iv = ivBase.clone();
        long n = counter++;
        for (int i = 0; i < 8; i++) {
            iv[iv.length - 1 - i] ^= (byte) (n >>> (8 * i));
        }
        return gcm ? new GCMParameterSpec(128, iv) : new IvParameterSpec(iv);
    }

    @Override
    public Object run() throws GeneralSecurityException {
        return encrypting ? encrypt() : decrypt();
    }

    /** Encrypts {@link #data} under a fresh IV; see {@link #lastSpec}/{@link #lastParams}. */
    public byte[] encrypt() throws GeneralSecurityException {
        AlgorithmParameterSpec s = nextSpec();
        if (s != null) {
            enc.init(Cipher.ENCRYPT_MODE, encKey, s);
        } else {
            enc.init(Cipher.ENCRYPT_MODE, encKey);
        }
        lastSpec = s;
        lastParams = s == null ? enc.getParameters() : null;
        return enc.doFinal(data);
    }

    /** Decrypts {@link #ciphertext}. */
    public byte[] decrypt() throws GeneralSecurityException {
        return decrypt(ciphertext, decSpec, decParams);
    }

    /** Decrypts ct under the parameters of an earlier encryption. */
    public byte[] decrypt(byte[] ct, AlgorithmParameterSpec spec, AlgorithmParameters params)
            throws GeneralSecurityException {
        if (spec != null) {
            dec.init(Cipher.DECRYPT_MODE, decKey, spec);
        } else if (params != null) {
            dec.init(Cipher.DECRYPT_MODE, decKey, params);
        } else {
            dec.init(Cipher.DECRYPT_MODE, decKey);
        }
        return dec.doFinal(ct);
    }

    /** The parameters given to the last encryption (null: none given). */
    public AlgorithmParameterSpec lastSpec() {
        return lastSpec;
    }

    /** The parameters the provider chose in the last encryption without a spec (may be null). */
    public AlgorithmParameters lastParams() {
        return lastParams;
    }

    /** The encryption key (for cross-checks against another provider). */
    public Key encryptionKey() {
        return encKey;
    }
}
