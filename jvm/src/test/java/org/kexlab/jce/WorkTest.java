package org.kexlab.jce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyPair;
import java.security.Signature;
import java.security.interfaces.DSAPublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case the study benchmarks does correct cryptography, checked on
 * the very Work objects JMH runs: decryption inverts encryption, a
 * recommended transformation's ciphertext decrypts under the JDK's
 * independent implementation with the same parameters (so the parameters
 * really are what the case says), GCM rejects a changed ciphertext,
 * signatures verify (also under the JDK) and fail on a changed message or
 * signature, MACs agree with the JDK, generated keys have the requested
 * size. Cases a provider does not support are skipped (aborted), as the
 * study reports them "not supported".
 */
class WorkTest {
    static {
        Providers.install();
    }

    @TestFactory
    Stream<DynamicTest> everyCase() {
        // Generating DSA-2048 domain parameters takes seconds to minutes per
        // provider: the 1024-bit cases check that path.
        return Catalog.all(true).stream()
                .filter(c -> !(c.transformation().equals(KeyGenWork.FRESH_PARAMS) && c.keySize() > 1024))
                .map(c -> DynamicTest.dynamicTest(c.toString(), () -> check(c)));
    }

    private static void check(Case c) throws Exception {
        Work w;
        try {
            w = Work.create(c);
        } catch (NotSupportedException e) {
            abort("not supported: " + e.getMessage());
            return;
        }
        switch (c.op()) {
            case Case.KEYGEN -> keygen(c, (KeyGenWork) w);
            case Case.ENCRYPT, Case.DECRYPT -> cipher(c, (CipherWork) w);
            case Case.SIGN, Case.VERIFY -> signature(c, (SignatureWork) w);
            case Case.MAC -> mac(c, (MacWork) w);
            default -> throw new AssertionError(c.op());
        }
    }

    private static void keygen(Case c, KeyGenWork w) throws Exception {
        Object a = w.run(), b = w.run();
        if (a instanceof SecretKey k) {
            byte[] e = k.getEncoded();
            if (c.algorithm().equals("DESede")) {
                // Two-key triple DES is K1 K2 (16 bytes, BC) or K1 K2 K1 (24 bytes, SunJCE);
                // three-key has K3 != K1 (except with negligible probability).
                boolean twoKey = e.length == 16
                        || Arrays.equals(Arrays.copyOfRange(e, 0, 8), Arrays.copyOfRange(e, 16, 24));
                assertTrue(e.length == 24 || (c.keySize() == 112 && e.length == 16), "key length " + e.length);
                assertEquals(c.keySize() == 112, twoKey, "DESede keying option");
            } else {
                assertEquals(c.keySize() / 8, e.length, "key length");
            }
            assertFalse(Arrays.equals(e, ((SecretKey) b).getEncoded()), "two keys are equal");
            return;
        }
        KeyPair kp = (KeyPair) a;
        switch (c.algorithm()) {
            case "RSA" -> {
                RSAPublicKey pub = (RSAPublicKey) kp.getPublic();
                assertEquals(c.keySize(), pub.getModulus().bitLength());
                assertEquals(65537, pub.getPublicExponent().intValueExact());
            }
            case "DSA" -> assertEquals(c.keySize(), ((DSAPublicKey) kp.getPublic()).getParams().getP().bitLength());
            case "EC" -> assertEquals(c.keySize(), ((ECPublicKey) kp.getPublic()).getParams().getCurve().getField()
                    .getFieldSize());
            default -> throw new AssertionError(c.algorithm());
        }
        assertNotEquals(kp.getPublic(), ((KeyPair) b).getPublic(), "two key pairs are equal");
    }

    private static void cipher(Case c, CipherWork w) throws Exception {
        byte[] ct = (byte[]) (c.op().equals(Case.ENCRYPT) ? w.run() : w.encrypt());
        assertFalse(Arrays.equals(ct, w.data), "ciphertext equals plaintext");
        assertArrayEquals(w.data, w.decrypt(ct, w.lastSpec(), w.lastParams()), "decrypt(encrypt(m))");
        assertArrayEquals(w.data, w.decrypt(), "decrypt of the benchmark's ciphertext");
        if (c.op().equals(Case.DECRYPT)) {
            assertArrayEquals(w.data, (byte[]) w.run());
        }
        if (c.isDefaultTransformation()) {
            return; // its parameters are whatever the provider chose; see DiscoveryTest
        }
        // The JDK decrypts the provider's ciphertext with the case's parameters.
        Cipher ref = Cipher.getInstance(c.transformation(), "SunJCE");
        Key dk = c.algorithm().equals("RSA") ? Keys.pair("RSA", c.keySize()).getPrivate() : w.encryptionKey();
        if (w.lastSpec() != null) {
            ref.init(Cipher.DECRYPT_MODE, dk, w.lastSpec());
        } else {
            ref.init(Cipher.DECRYPT_MODE, dk);
        }
        assertArrayEquals(w.data, ref.doFinal(ct), "the JDK decrypts the provider's ciphertext");
        int expect = switch (c.transformation()) {
            case Catalog.AES_GCM -> c.dataLength() + 16;
            case Catalog.AES_CBC, Catalog.DESEDE_CBC -> {
                int bs = c.algorithm().equals("AES") ? 16 : 8;
                yield (c.dataLength() / bs + 1) * bs;
            }
            default -> c.keySize() / 8;
        };
        assertEquals(expect, ct.length, "ciphertext length");
        if (c.transformation().equals(Catalog.AES_GCM)) {
            byte[] bad = Keys.flip(ct, ct.length / 2);
            assertThrows(AEADBadTagException.class, () -> w.decrypt(bad, w.lastSpec(), null));
        }
    }

    private static void signature(Case c, SignatureWork w) throws Exception {
        byte[] sig = c.op().equals(Case.SIGN) ? (byte[]) w.run() : w.signature;
        if (c.op().equals(Case.VERIFY)) {
            assertEquals(Boolean.TRUE, w.run(), "the benchmark's verification");
        }
        assertTrue(w.verify(w.data, sig), "verify(sign(m))");
        assertFalse(w.verify(Keys.flip(w.data, 3), sig), "verify of a changed message");
        assertFalse(verifies(w, w.data, Keys.flip(sig, sig.length - 1)), "verify of a changed signature");
        // The JDK verifies it too, with the study's parameters.
        KeyPair kp = Keys.pair(c.algorithm(), c.keySize());
        if (c.transformation().equals("NONEwithRSA")) {
            // No JDK provider signs NONEwithRSA; SunJCE's PKCS#1 cipher
            // opens a signature block (type 1) with the public key.
            Cipher raw = Cipher.getInstance(Catalog.RSA_PKCS1, "SunJCE");
            raw.init(Cipher.DECRYPT_MODE, Keys.pair("RSA", c.keySize()).getPublic());
            assertArrayEquals(w.data, raw.doFinal(sig), "the JDK opens the provider's NONEwithRSA signature");
            return;
        }
        Signature ref = Signature.getInstance(c.transformation(),
                List.of("RSA").contains(c.algorithm()) ? "SunRsaSign" : c.algorithm().equals("EC") ? "SunEC" : "SUN");
        if (c.transformation().equals("RSASSA-PSS")) {
            ref.setParameter(SignatureWork.PSS_SHA256);
        }
        ref.initVerify(kp.getPublic());
        ref.update(w.data);
        assertTrue(ref.verify(sig), "the JDK verifies the provider's signature");
    }

    private static boolean verifies(SignatureWork w, byte[] m, byte[] sig) {
        try {
            return w.verify(m, sig);
        } catch (GeneralSecurityException e) {
            return false; // rejecting a malformed signature is also a failure to verify
        }
    }

    private static void mac(Case c, MacWork w) throws Exception {
        byte[] tag = (byte[]) w.run();
        Mac ref = Mac.getInstance(c.transformation(), "SunJCE");
        ref.init(Keys.secret(c.algorithm(), c.keySize()));
        assertArrayEquals(ref.doFinal(w.data), tag, "agrees with the JDK");
        assertArrayEquals(tag, (byte[]) w.run(), "doFinal resets the Mac");
        assertFalse(Arrays.equals(tag, w.mac(Keys.flip(w.data, 0))), "changed message, same tag");
    }

    @Test
    void unknownProviderIsNotSupported() {
        assertThrows(NotSupportedException.class,
                () -> Work.create(new Case("NoSuchProvider", "AES", 128, Catalog.AES_GCM, 100, Case.ENCRYPT)));
        assertThrows(NotSupportedException.class,
                () -> Work.create(new Case(Providers.JDK, "AES", 100, Catalog.AES_GCM, 100, Case.ENCRYPT)));
    }
}
