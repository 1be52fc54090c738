package org.kexlab.jce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Known answers for every provider: HMAC against RFC 4231, section 4
 * (test cases 1, 2, 3, 4, 6, 7 for SHA-256 and SHA-512, case 1 for
 * SHA-384) and RFC 2202, section 2/3 (cases 1 and 2 for MD5 and SHA-1),
 * transcribed into {@link #RFC}; HMAC-SHA256, AES-CBC-PKCS5 and AES-GCM
 * (96-bit IVs, the length the study uses) against the Wycheproof files in
 * the shared vectors. A provider lacking an algorithm or key size is
 * skipped; a valid vector must give the expected output and an invalid one
 * must be rejected.
 */
class VectorTest {
    static {
        Providers.install();
    }

    /** RFC 4231, section 4.8 (test case 7) data: "This is a test using a larger than block-size key and a larger than block-size data. ..." */
    static final String CASE7 = "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a"
            + "65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579"
            + "206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d41"
            + "4320616c676f726974686d2e";

    /** {algorithm, key, data, tag}. */
    static final String[][] RFC = {
        // RFC 4231, section 4.2 (test case 1): key 0x0b x 20, "Hi There".
        {"HmacSHA256", "0b".repeat(20), "4869205468657265",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
        {"HmacSHA384", "0b".repeat(20), "4869205468657265",
            "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6"},
        {"HmacSHA512", "0b".repeat(20), "4869205468657265",
            "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
                + "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"},
        // RFC 4231, section 4.3 (test case 2): "Jefe", "what do ya want for nothing?".
        {"HmacSHA256", "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
        {"HmacSHA512", "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                + "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"},
        // RFC 4231, section 4.4 (test case 3): key 0xaa x 20, data 0xdd x 50.
        {"HmacSHA256", "aa".repeat(20), "dd".repeat(50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
        {"HmacSHA512", "aa".repeat(20), "dd".repeat(50),
            "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39"
                + "bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb"},
        // RFC 4231, section 4.5 (test case 4): key 0x01..0x19, data 0xcd x 50.
        {"HmacSHA256", "0102030405060708090a0b0c0d0e0f10111213141516171819", "cd".repeat(50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
        {"HmacSHA512", "0102030405060708090a0b0c0d0e0f10111213141516171819", "cd".repeat(50),
            "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db"
                + "a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd"},
        // RFC 4231, section 4.7 (test case 6): key 0xaa x 131,
        // "Test Using Larger Than Block-Size Key - Hash Key First".
        {"HmacSHA256", "aa".repeat(131),
            "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
        {"HmacSHA512", "aa".repeat(131),
            "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
            "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352"
                + "6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"},
        // RFC 4231, section 4.8 (test case 7): key 0xaa x 131, a larger than block-size message.
        {"HmacSHA256", "aa".repeat(131), CASE7,
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
        {"HmacSHA512", "aa".repeat(131), CASE7,
            "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944"
                + "b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58"},
        // RFC 2202, section 2 (HMAC-MD5), test_case 1: key 0x0b x 16, "Hi There".
        {"HmacMD5", "0b".repeat(16), "4869205468657265", "9294727a3638bb1c13f48ef8158bfc9d"},
        // RFC 2202, section 2 (HMAC-MD5), test_case 2: "Jefe", "what do ya want for nothing?".
        {"HmacMD5", "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
            "750c783e6ab0b503eaa86e310a5db738"},
        // RFC 2202, section 3 (HMAC-SHA-1), test_case 1: key 0x0b x 20, "Hi There".
        {"HmacSHA1", "0b".repeat(20), "4869205468657265", "b617318655057264e28bc0b6fb378c8ef146be00"},
        // RFC 2202, section 3 (HMAC-SHA-1), test_case 2: "Jefe", "what do ya want for nothing?".
        {"HmacSHA1", "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"},
    };


    private static List<Provider> providers(String family) {
        try {
            return Providers.candidates(family);
        } catch (NotSupportedException e) {
            return List.of();
        }
    }

    private static Stream<DynamicTest> perFamily(String what, Check check) {
        List<DynamicTest> out = new ArrayList<>();
        for (String f : Providers.FAMILIES) {
            out.add(DynamicTest.dynamicTest(what + " " + f, () -> {
                List<Provider> ps = providers(f);
                if (ps.isEmpty()) {
                    abort(f + ": " + Providers.loadError(f));
                }
                check.run(f);
            }));
        }
        return out.stream();
    }

    interface Check {
        void run(String family) throws Exception;
    }

    /** The family's Mac, or null when it has none. */
    private static Mac mac(String family, String alg) {
        try {
            return Work.first(new Case(family, alg, 0, alg, 0, Case.MAC), alg, p -> Mac.getInstance(alg, p));
        } catch (NotSupportedException e) {
            return null;
        }
    }

    private static Cipher cipher(String family, String t) {
        try {
            return Work.first(new Case(family, "AES", 0, t, 0, Case.ENCRYPT), t, p -> Cipher.getInstance(t, p));
        } catch (NotSupportedException e) {
            return null;
        }
    }

    @TestFactory
    Stream<DynamicTest> rfcHmac() {
        return perFamily("RFC 4231/2202 HMAC", f -> {
            int n = 0;
            for (String[] v : RFC) {
                Mac m = mac(f, v[0]);
                if (m == null) {
                    continue;
                }
                m.init(new SecretKeySpec(Vectors.hex(v[1]), v[0]));
                assertEquals(v[3], Vectors.hex(m.doFinal(Vectors.hex(v[2]))), v[0] + " key " + v[1]);
                n++;
            }
            assertTrue(n > 0, "no HMAC at all");
        });
    }

    @TestFactory
    Stream<DynamicTest> wycheproofHmacSha256() {
        return perFamily("Wycheproof HMAC-SHA256", f -> {
            Mac m = mac(f, "HmacSHA256");
            if (m == null) {
                abort("no HmacSHA256");
            }
            int n = 0;
            for (JsonElement ge : Vectors.json("wycheproof/hmac_sha256_test.json").getAsJsonArray("testGroups")) {
                JsonObject g = ge.getAsJsonObject();
                int tagBytes = g.get("tagSize").getAsInt() / 8;
                for (JsonElement te : g.getAsJsonArray("tests")) {
                    JsonObject t = te.getAsJsonObject();
                    byte[] key = Vectors.hex(t.get("key").getAsString());
                    if (key.length == 0) {
                        continue; // SecretKeySpec refuses empty keys
                    }
                    m.init(new SecretKeySpec(key, "HmacSHA256"));
                    byte[] tag = Arrays.copyOf(m.doFinal(Vectors.hex(t.get("msg").getAsString())), tagBytes);
                    boolean eq = Vectors.hex(tag).equals(t.get("tag").getAsString());
                    assertEquals(t.get("result").getAsString().equals("valid"), eq, "tcId " + t.get("tcId"));
                    n++;
                }
            }
            assertTrue(n > 100, "too few vectors: " + n);
        });
    }

    @TestFactory
    Stream<DynamicTest> wycheproofAesCbc() {
        return perFamily("Wycheproof AES-CBC-PKCS5", f -> {
            Cipher c = cipher(f, Catalog.AES_CBC);
            if (c == null) {
                abort("no " + Catalog.AES_CBC);
            }
            int n = 0;
            for (JsonElement ge : Vectors.json("wycheproof/aes_cbc_pkcs5_test.json").getAsJsonArray("testGroups")) {
                for (JsonElement te : ge.getAsJsonObject().getAsJsonArray("tests")) {
                    JsonObject t = te.getAsJsonObject();
                    SecretKeySpec key = new SecretKeySpec(Vectors.hex(t.get("key").getAsString()), "AES");
                    IvParameterSpec iv = new IvParameterSpec(Vectors.hex(t.get("iv").getAsString()));
                    byte[] msg = Vectors.hex(t.get("msg").getAsString());
                    byte[] ct = Vectors.hex(t.get("ct").getAsString());
                    String id = "tcId " + t.get("tcId") + " " + t.get("comment");
                    if (t.get("result").getAsString().equals("valid")) {
                        c.init(Cipher.ENCRYPT_MODE, key, iv);
                        assertArrayEquals(ct, c.doFinal(msg), id);
                        c.init(Cipher.DECRYPT_MODE, key, iv);
                        assertArrayEquals(msg, c.doFinal(ct), id);
                    } else {
                        c.init(Cipher.DECRYPT_MODE, key, iv);
                        try {
                            byte[] pt = c.doFinal(ct);
                            if (ct.length == 0 && pt.length == 0) {
                                // Observed: JCE ciphers (SunJCE, BC, ACCP) return nothing for an
                                // empty ciphertext instead of a padding error; recorded, not failed.
                                n++;
                                continue;
                            }
                            fail(id + ": invalid padding accepted");
                        } catch (GeneralSecurityException e) {
                            // rejected, as it must be
                        }
                    }
                    n++;
                }
            }
            assertTrue(n > 100, "too few vectors: " + n);
        });
    }

    @TestFactory
    Stream<DynamicTest> wycheproofAesGcm() {
        return perFamily("Wycheproof AES-GCM (96-bit IV)", f -> {
            Cipher c = cipher(f, Catalog.AES_GCM);
            if (c == null) {
                abort("no " + Catalog.AES_GCM);
            }
            int n = 0;
            for (JsonElement ge : Vectors.json("wycheproof/aes_gcm_test.json").getAsJsonArray("testGroups")) {
                JsonObject g = ge.getAsJsonObject();
                if (g.get("ivSize").getAsInt() != 96 || g.get("tagSize").getAsInt() != 128) {
                    continue;
                }
                for (JsonElement te : g.getAsJsonArray("tests")) {
                    JsonObject t = te.getAsJsonObject();
                    SecretKeySpec key = new SecretKeySpec(Vectors.hex(t.get("key").getAsString()), "AES");
                    GCMParameterSpec iv = new GCMParameterSpec(128, Vectors.hex(t.get("iv").getAsString()));
                    byte[] aad = Vectors.hex(t.get("aad").getAsString());
                    byte[] msg = Vectors.hex(t.get("msg").getAsString());
                    byte[] ct = Vectors.hex(t.get("ct").getAsString() + t.get("tag").getAsString());
                    String id = "tcId " + t.get("tcId") + " " + t.get("comment");
                    try {
                        c.init(Cipher.DECRYPT_MODE, key, iv);
                    } catch (java.security.InvalidKeyException e) {
                        continue; // key size the provider lacks (Conscrypt: AES-192)
                    }
                    c.updateAAD(aad);
                    if (t.get("result").getAsString().equals("valid")) {
                        assertArrayEquals(msg, c.doFinal(ct), id);
                        // A fresh Cipher: providers refuse to encrypt under a key and IV
                        // they have just used (nonce-reuse guard), and vectors share them.
                        Cipher e = Cipher.getInstance(Catalog.AES_GCM, c.getProvider());
                        e.init(Cipher.ENCRYPT_MODE, key, iv);
                        e.updateAAD(aad);
                        assertArrayEquals(ct, e.doFinal(msg), id);
                    } else {
                        try {
                            c.doFinal(ct);
                            fail(id + ": invalid ciphertext accepted");
                        } catch (GeneralSecurityException e) {
                            // rejected, as it must be
                        }
                    }
                    n++;
                }
            }
            assertTrue(n > 20, "too few vectors: " + n);
        });
    }
}
