package org.kexlab.jce;

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
    private final KeyGenerator kg;
    private final KeyPairGenerator kpg;

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
            kg.generateKey();
            return;
        }
        kg = null;
        kpg = KeyPairGenerator.getInstance(c.algorithm(), p);
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
    public Object run() {
        return kg != null ? kg.generateKey() : kpg.generateKeyPair();
    }

    /** A freshly generated secret key or key pair. */
    public Object generate() {
        return run();
    }
}
