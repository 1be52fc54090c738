package org.kexlab.jce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The discovery reports what the JDK documents for its own defaults
 * (Java Security Standard Algorithm Names; SunJCE provider notes: "AES" is
 * AES/ECB/PKCS5Padding, "RSA" is RSA/ECB/PKCS1Padding, the AES key
 * generator defaults to 128 bits, SunRsaSign's key pair generator to 2048)
 * and never throws: a provider or algorithm that is missing gives a
 * "not supported" row.
 */
class DiscoveryTest {
    static {
        Providers.install();
    }

    @Test
    void jdkDefaults() {
        Discovery.Row aes = Discovery.row(Providers.JDK, "AES");
        assertEquals("SunJCE", aes.implementedBy());
        assertEquals("ECB", aes.mode());
        assertEquals("PKCS#5/PKCS#7", aes.padding());
        assertEquals("128", aes.keySize());
        assertEquals("yes", aes.deterministic());
        Discovery.Row des = Discovery.row(Providers.JDK, "DESede");
        assertEquals("ECB", des.mode());
        assertEquals("PKCS#5/PKCS#7", des.padding());
        Discovery.Row rsa = Discovery.row(Providers.JDK, "RSA");
        assertEquals("PKCS#1 v1.5 (type 2)", rsa.padding());
        assertEquals("no", rsa.deterministic());
        assertEquals("2048", rsa.keySize());
    }

    @Test
    void everyRowAndMissingProvider() {
        List<Discovery.Row> rows = Discovery.table();
        assertEquals(Providers.FAMILIES.size() * Discovery.ALGORITHMS.size(), rows.size());
        Discovery.Row none = Discovery.row("NoSuchProvider", "AES");
        assertEquals("not supported", none.mode());
        String text = Discovery.text(rows);
        assertTrue(text.startsWith("provider"), text);
        assertEquals(rows.size() + 2, text.split("\n").length);
    }
}
