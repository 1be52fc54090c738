package org.kexlab.jce;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * The shared test vectors of the repository (../shared/vectors from the
 * repository root, i.e. ../../shared/vectors from jvm/), or the directory
 * named by the system property kexlab.vectors.
 */
final class Vectors {
    private Vectors() {}

    static Path dir() {
        String p = System.getProperty("kexlab.vectors");
        if (p == null || p.isEmpty()) {
            p = "../../shared/vectors";
        }
        return Path.of(p);
    }

    /** Reads a JSON vector file, failing the test when it is missing. */
    static JsonObject json(String name) throws IOException {
        Path f = dir().resolve(name);
        assertTrue(Files.isReadable(f), "test vectors not found: " + f.toAbsolutePath()
                + " (set -Dkexlab.vectors=DIR)");
        return JsonParser.parseString(Files.readString(f)).getAsJsonObject();
    }

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
