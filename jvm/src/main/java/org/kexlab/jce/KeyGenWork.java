package org.kexlab.jce;

import java.security.AlgorithmParameterGenerator;
import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.interfaces.DSAKey;
import java.security.spec.DSAParameterSpec;
import java.security.spec.ECGenParameterSpec;
import javax.crypto.KeyGenerator;

/**
 * Key generation: KeyGenerator.generateKey (AES, DESede, HMAC) and
 * KeyPairGenerator.generateKeyPair (RSA with e = 65537, DSA, EC), each
 * generator initialised once with the key size. DSA key pairs are drawn
 * in the domain parameters of the shared JDK DSA-2048 key, for every
 * provider: the measured cost is that of a key pair, not of generating
 * domain parameters, which some providers would otherwise do in init.
 */
public final class KeyGenWork extends Work {
    /**
     * DSA key generation with the provider's own parameter handling: each
     * operation calls initialize(keySize) (precomputed parameters, or
     * freshly generated ones, as the provider does) and generates a pair.
     */
    public static final String BY_SIZE = "KeyPairGenerator(size)";
    /**
     * DSA key generation with fresh domain parameters: each operation
     * generates parameters (AlgorithmParameterGenerator) and a pair in them.
     */
    public static final String FRESH_PARAMS = "AlgorithmParameterGenerator";

    private final KeyGenerator kg;
    private final KeyPairGenerator kpg;
    private final AlgorithmParameterGenerator apg;

    static KeyGenWork prepare(Case c) throws NotSupportedException {
        return first(c, c.transformation() + " " + c.algorithm() + " of " + c.keySize() + " bits",
                p -> new KeyGenWork(c, p));
    }

    private KeyGenWork(Case c, Provider p) throws GeneralSecurityException {
        super(c, p);
        if (c.transformation().equals("KeyGenerator")) {
            kg = KeyGenerator.getInstance(c.algorithm(), p);
            kg.init(c.keySize());
            kpg = null;
            apg = null;
            kg.generateKey();
            return;
        }
        kg = null;
        kpg = KeyPairGenerator.getInstance(c.algorithm(), p);
        if (c.transformation().equals(FRESH_PARAMS)) {
            apg = AlgorithmParameterGenerator.getInstance(c.algorithm(), p);
            apg.init(c.keySize());
            return; // each run generates parameters: seconds, too slow to warm up here
        }
        apg = null;
        if (c.transformation().equals(BY_SIZE)) {
            kpg.initialize(c.keySize());
            return;
        }
        switch (c.algorithm()) {
            case "EC":
                kpg.initialize(new ECGenParameterSpec(Keys.curve(c.keySize())));
                break;
            case "DSA":
                DSAKey k = (DSAKey) Keys.pair("DSA", c.keySize()).getPublic();
                kpg.initialize(new DSAParameterSpec(k.getParams().getP(), k.getParams().getQ(),
                        k.getParams().getG()));
                break;
            default:
                kpg.initialize(c.keySize());
        }
        if (!c.algorithm().equals("RSA")) {
            kpg.generateKeyPair(); // RSA keys are slow; the JMH warm-up makes them
        }
    }

    @Override
    public Object run() throws GeneralSecurityException {
        if (kg != null) {
            return kg.generateKey();
        }
        if (apg != null) {
            kpg.initialize(apg.generateParameters().getParameterSpec(DSAParameterSpec.class));
        } else if (c.transformation().equals(BY_SIZE)) {
            kpg.initialize(c.keySize());
        }
        return kpg.generateKeyPair();
    }

    /** A freshly generated secret key or key pair. */
    public Object generate() throws GeneralSecurityException {
        return run();
    }
}
