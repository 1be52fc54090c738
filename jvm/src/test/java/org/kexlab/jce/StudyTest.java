package org.kexlab.jce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The output file and the catalog's shape. */
class StudyTest {
    @Test
    void notSupportedEntries(@TempDir Path dir) throws Exception {
        Map<Case, String> un = new LinkedHashMap<>();
        Case c = new Case(Providers.CONSCRYPT, "AES", 192, Catalog.AES_GCM, 100, Case.ENCRYPT);
        un.put(c, "not supported: key size");
        Path f = dir.resolve("jmh.json");
        Study.write(f, List.of(), un, "no RAPL here", new Gson());
        JsonArray a = JsonParser.parseString(Files.readString(f)).getAsJsonArray();
        assertEquals(1, a.size());
        JsonObject o = a.get(0).getAsJsonObject();
        assertEquals("org.kexlab.jce.PrimitiveBench.run", o.get("benchmark").getAsString());
        assertEquals("not supported: key size", o.get("kexlabNotSupported").getAsString());
        assertEquals("not measured: no RAPL here", o.get("kexlabEnergy").getAsString());
        assertEquals("192", o.getAsJsonObject("params").get("keySize").getAsString());
        assertEquals(0, o.getAsJsonObject("primaryMetric").getAsJsonArray("rawData").size());
    }

    @Test
    void catalog() {
        List<Case> all = Catalog.all(true);
        Set<Case> uniq = new HashSet<>(all);
        assertEquals(all.size(), uniq.size(), "duplicate cases");
        for (Case c : all) {
            for (String v : c.params().values()) {
                // kexlab's importer joins params as k=v,k=v inside brackets.
                assertTrue(!v.isEmpty() && !v.contains(",") && !v.contains("=") && !v.contains("]"), v);
            }
        }
        // The providers of a case are adjacent.
        assertEquals(all.get(0).transformation(), all.get(Providers.FAMILIES.size() - 1).transformation());
    }
}
