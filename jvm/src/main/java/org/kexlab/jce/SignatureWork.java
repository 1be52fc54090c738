package org.kexlab.jce;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.List;

/**
 * Signing and verification (SHA256withRSA = RSASSA-PKCS1-v1_5 and
 * RSASSA-PSS of RFC 8017, 8; DSA and ECDSA of FIPS 186). The Signature
 * objects are initialised once with the shared key pair imported into the
 * provider; sign() and verify() leave them ready for the next message.
 * RSASSA-PSS uses SHA-256, MGF1 with SHA-256 and a 32-byte salt; providers
 * name it "RSASSA-PSS" (with parameters) or "SHA256withRSA/PSS", and the
 * first name that works is used.
 */
public final class SignatureWork extends Work {
    /** The PSS parameters of the study. */
    public static final PSSParameterSpec PSS_SHA256 = new PSSParameterSpec("SHA-256", "MGF1",
            MGF1ParameterSpec.SHA256, 32, 1);

    private final Signature signer, verifier;
    private final boolean signing;
    /** The public key, as imported into the provider. */
    public final PublicKey publicKey;
    /** A signature of {@link #data}, verified by the verify operation. */
    public final byte[] signature;
    /** The Signature algorithm name that the provider accepted. */
    public final String name;

    static SignatureWork prepare(Case c) throws NotSupportedException {
        return first(c, "Signature " + c.transformation() + " with a " + c.keySize() + "-bit key",
                p -> new SignatureWork(c, p));
    }

    private SignatureWork(Case c, Provider p) throws GeneralSecurityException {
        super(c, p);
        KeyPair kp = Keys.pair(c.algorithm(), c.keySize());
        PrivateKey priv = Keys.translate(p, kp.getPrivate());
        publicKey = Keys.translate(p, kp.getPublic());
        boolean pss = c.transformation().equals("RSASSA-PSS");
        List<String> names = pss ? List.of("RSASSA-PSS", "SHA256withRSA/PSS", "SHA256withRSAandMGF1")
                : List.of(c.transformation());
        GeneralSecurityException last = null;
        Signature s = null, v = null;
        String used = null;
        for (String n : names) {
            try {
                s = Signature.getInstance(n, p);
                v = Signature.getInstance(n, p);
                if (pss) {
                    params(s, n);
                    params(v, n);
                }
                used = n;
                break;
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        if (used == null) {
            throw last;
        }
        signer = s;
        verifier = v;
        name = used;
        signer.initSign(priv);
        verifier.initVerify(publicKey);
        signing = c.op().equals(Case.SIGN);
        signature = sign(data);
        if (!verify(data, signature)) {
            throw new GeneralSecurityException(p.getName() + " " + name + ": own signature does not verify");
        }
    }

    /**
     * Sets the PSS parameters; a name that implies them ("…/PSS") may
     * refuse setParameter, which is accepted only for such names.
     */
    private static void params(Signature s, String n) throws GeneralSecurityException {
        try {
            s.setParameter(PSS_SHA256);
        } catch (GeneralSecurityException | UnsupportedOperationException e) {
            if (n.equals("RSASSA-PSS")) {
                throw e instanceof GeneralSecurityException ? (GeneralSecurityException) e
                        : new GeneralSecurityException(e);
            }
        }
    }

    @Override
    public Object run() throws GeneralSecurityException {
        if (signing) {
            signer.update(data);
            return signer.sign();
        }
        verifier.update(data);
        return verifier.verify(signature);
    }

    /** Signs msg. */
    public byte[] sign(byte[] msg) throws GeneralSecurityException {
        signer.update(msg);
        return signer.sign();
    }

    /** Verifies sig on msg. */
    public boolean verify(byte[] msg, byte[] sig) throws GeneralSecurityException {
        verifier.update(msg);
        return verifier.verify(sig);
    }
}
