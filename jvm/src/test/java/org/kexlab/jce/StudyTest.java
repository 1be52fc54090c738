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
    void entries(@TempDir Path dir) throws Exception {
        Map<Case, String> un = new LinkedHashMap<>();
        Case c = new Case(Providers.CONSCRYPT, "AES", 192, Catalog.AES_GCM, 100, Case.ENCRYPT);
        un.put(c, "not supported: key size");
        Case m = new Case(Providers.JDK, "HmacSHA256", 256, Catalog.OID_HMAC_SHA256, 100, Case.MAC);
        Map<Case, List<Harness.Outcome>> outs = new LinkedHashMap<>();
        outs.put(m, List.of(new Harness.Outcome(m, new double[] {1, 2}, Map.of(), null),
                new Harness.Outcome(m, new double[] {3, 4}, Map.of(), null)));
        Path f = dir.resolve("jmh.json");
        JsonObject machine = new JsonObject();
        machine.addProperty("cores", 2);
        Study.write(f, outs, un, Map.of(m, "HmacSHA256|same service"), "no RAPL here", machine, new Gson());
        JsonArray a = JsonParser.parseString(Files.readString(f)).getAsJsonArray();
        assertEquals(2, a.size());
        JsonObject meas = a.get(0).getAsJsonObject();
        assertEquals("[[1.0,2.0],[3.0,4.0]]", meas.getAsJsonObject("primaryMetric").get("rawData").toString(),
                "one array per fork");
        assertEquals("HmacSHA256", meas.getAsJsonObject("kexlabAlias").get("of").getAsString());
        assertEquals(2, meas.getAsJsonObject("kexlabMachine").get("cores").getAsInt());
        JsonObject o = a.get(1).getAsJsonObject();
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
        // Every alias case has its canonical case in the catalog.
        for (Case c : all) {
            String canon = Catalog.ALIASES.get(c.transformation());
            if (canon != null) {
                assertTrue(uniq.contains(new Case(c.provider(), c.algorithm(), c.keySize(), canon, c.dataLength(),
                        c.op())), c.toString());
            }
        }
        // The providers of a case are adjacent.
        assertEquals(all.get(0).transformation(), all.get(Providers.FAMILIES.size() - 1).transformation());
    }

    /** Over budget, the plan shrinks the iterations first, then leaves out the costliest cases with the reason. */
    @Test
    void planFitsTheBudget() {
        Study.Settings s = new Study.Settings();
        s.forks = 3;
        Map<Case, double[]> costs = new LinkedHashMap<>();
        Case cheap = new Case(Providers.JDK, "AES", 128, Catalog.AES_GCM, 100, Case.ENCRYPT);
        Case slow = new Case(Providers.BC, "DSA", 2048, KeyGenWork.FRESH_PARAMS, 0, Case.KEYGEN);
        costs.put(cheap, new double[] {1e3, 1e6}); // 1 µs per op, 1 ms to prepare
        costs.put(slow, new double[] {6.6e9, 1e6}); // 6.6 s per op
        Study.Plan roomy = Study.plan(costs, s, 1e12);
        assertEquals(2, roomy.plans.size());
        assertEquals(25, roomy.iterationMs);
        assertEquals(5, roomy.iterations, "n 15 over 3 forks");
        Harness.Plan p = roomy.plans.stream().filter(x -> x.c().equals(cheap)).findFirst().orElseThrow();
        assertEquals(25_000, p.batch(), "25 ms of 1 µs operations");
        // 3 forks × (5 + 2) × 6.6 s = 139 s for the slow case alone.
        Study.Plan tight = Study.plan(costs, s, 100e9);
        assertEquals(1, tight.plans.size());
        assertTrue(tight.dropped.get(slow).startsWith("not measured: the run's time budget"), tight.dropped.toString());
        Study.Plan shrunk = Study.plan(Map.of(cheap, new double[] {1e3, 1e6}), s, 3 * 3e9 + 3 * (1e6 + 6 * 2e6) + 1);
        assertEquals(2, shrunk.iterationMs, "iterations shrink before a case is dropped");
        assertEquals(1, shrunk.plans.size());
    }

    /** A fork measures a planned case: n iterations, ns per operation. */
    @Test
    void harnessMeasures() {
        Providers.install();
        Case c = new Case(Providers.JDK, "HmacSHA256", 256, "HmacSHA256", 100, Case.MAC);
        Harness.Outcome o = Harness.measure(new Harness.Plan(c, 100, 1, 4), List.of());
        assertEquals(null, o.error());
        assertEquals(4, o.ns().length);
        for (double v : o.ns()) {
            assertTrue(v > 10 && v < 1e7, "ns per HMAC " + v);
        }
        Harness.Outcome bad = Harness.measure(new Harness.Plan(new Case("NoSuchProvider", "AES", 128,
                Catalog.AES_GCM, 100, Case.ENCRYPT), 1, 1, 1), List.of());
        assertTrue(bad.error().startsWith("not supported"), bad.error());
    }

    /** The JDK maps SHA256withRSA's and HmacSHA256's OIDs to the same services: A/A pairs. */
    @Test
    void aliasesAreOneService() throws Exception {
        Providers.install();
        Map<Case, Work> works = new LinkedHashMap<>();
        for (Case c : new Case[] {new Case(Providers.JDK, "HmacSHA256", 256, "HmacSHA256", 100, Case.MAC),
            new Case(Providers.JDK, "HmacSHA256", 256, Catalog.OID_HMAC_SHA256, 100, Case.MAC)}) {
            works.put(c, Work.create(c));
        }
        Map<Case, String> a = Study.aliases(works, List.of());
        assertEquals(1, a.size(), a.toString());
        assertTrue(a.values().iterator().next().startsWith("HmacSHA256|SunJCE maps both names"), a.toString());
    }

    /** A fork's per-round lines of one case join into one outcome, in round order. */
    @Test
    void mergeRounds() {
        Case c = new Case(Providers.JDK, "HmacSHA256", 256, "HmacSHA256", 100, Case.MAC);
        Harness.Outcome m = Harness.merge(List.of(new Harness.Outcome(c, new double[] {3}, Map.of("package-0", new double[] {1}), null),
                new Harness.Outcome(c, new double[] {1}, Map.of("package-0", new double[] {2}), null),
                new Harness.Outcome(c, new double[] {2}, Map.of(), null)));
        assertEquals("[3.0, 1.0, 2.0]", java.util.Arrays.toString(m.ns()));
        assertTrue(m.energy().isEmpty(), "a domain missing in a round is left out");
        Harness.Outcome bad = Harness.merge(List.of(new Harness.Outcome(c, null, null, "failed: boom")));
        assertEquals("failed: boom", bad.error());
    }
}
