package org.kexlab.jce;

import java.security.GeneralSecurityException;
import java.security.Provider;
import java.util.List;

/**
 * One prepared case: everything a measured operation needs (provider
 * objects, imported keys, data, precomputed ciphertext or signature) is
 * made by {@link #create}, outside the measurement; {@link #run} is the
 * operation JMH times. The JUnit tests drive the very same objects.
 */
public abstract class Work {
    /** The case this work measures. */
    public final Case c;
    /** The provider that implements it. */
    public final Provider provider;
    /** The message (its first byte is never zero, see {@link #message}). */
    public final byte[] data;

    Work(Case c, Provider provider) {
        this.c = c;
        this.provider = provider;
        this.data = message(c.dataLength());
    }

    /** The measured operation; its result goes to JMH's blackhole. */
    public abstract Object run() throws GeneralSecurityException;

    /**
     * The study's message of n bytes: fixed pseudo-random bytes whose first
     * byte is not zero, so that raw ("NoPadding") RSA, which drops leading
     * zeros on decryption, still round-trips.
     */
    public static byte[] message(int n) {
        byte[] m = Keys.bytes("message", n);
        if (n > 0) {
            m[0] = 0x5a;
        }
        return m;
    }

    /**
     * Prepares case c.
     *
     * @throws NotSupportedException when the provider is missing or lacks
     *     the algorithm, transformation, key size or parameters
     * @throws GeneralSecurityException when preparing fails otherwise
     */
    public static Work create(Case c) throws GeneralSecurityException, NotSupportedException {
        switch (c.op()) {
            case Case.KEYGEN:
                return KeyGenWork.prepare(c);
            case Case.ENCRYPT:
            case Case.DECRYPT:
                return CipherWork.prepare(c);
            case Case.SIGN:
            case Case.VERIFY:
                return SignatureWork.prepare(c);
            case Case.MAC:
                return MacWork.prepare(c);
            default:
                throw new IllegalArgumentException("unknown op " + c.op());
        }
    }

    /** Runs f on each candidate provider of c's family until one succeeds. */
    static <T> T first(Case c, String what, Factory<T> f) throws NotSupportedException {
        List<Provider> ps = Providers.candidates(c.provider());
        GeneralSecurityException last = null;
        for (Provider p : ps) {
            try {
                return f.make(p);
            } catch (GeneralSecurityException | UnsupportedOperationException e) {
                last = e instanceof GeneralSecurityException ? (GeneralSecurityException) e
                        : new GeneralSecurityException(e);
            }
        }
        throw new NotSupportedException(c.provider() + ": " + what
                + (last == null ? "" : ": " + last.getClass().getSimpleName() + ": " + last.getMessage()), last);
    }

    /** Makes an engine from a provider. */
    interface Factory<T> {
        T make(Provider p) throws GeneralSecurityException;
    }
}
