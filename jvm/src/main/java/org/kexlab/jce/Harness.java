package org.kexlab.jce;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One measuring fork of the study: a JVM of its own that {@link Study}
 * starts with a plan file, a fork number and a seed. It loads the
 * providers, prepares every planned case, shuffles the cases (providers
 * and primitives alike) with its seed, so that drift of the machine during
 * the fork hits every provider alike and each fork has its own order, and
 * for each case runs its warm-up iterations, then its measured iterations:
 * one iteration is a batch of operations timed with System.nanoTime, its
 * score the mean time per operation. Results go into a sink the JIT cannot
 * prove unused. Where RAPL is readable the package energy is read around
 * every measured iteration.
 *
 * <p>Why not one JMH fork per case, as before: JMH starts a JVM for every
 * benchmark and every fork, about a second each before warm-up; 450 cases
 * in 3 forks would spend the study's whole 20-minute budget on JVM
 * starts. Here a fork measures every case, and the 3 forks give the
 * between-JVM variation (JIT decisions, heap layout) that JMH's forks give.
 *
 * <p>Usage (by Study): {@code Harness PLAN.json FORK SEED OUT.json}.
 */
public final class Harness {
    private Harness() {}

    /** One planned case: operations per iteration, warm-up and measured iterations. */
    record Plan(Case c, int batch, int warmups, int iterations) {}

    /** One case in one fork: ns per operation and µJ per operation per RAPL domain, or why not. */
    record Outcome(Case c, double[] ns, Map<String, double[]> energy, String error) {}

    private static volatile int sink;

    /** Runs a batch of n operations. */
    static void batch(Work w, int n) throws Exception {
        int h = 0;
        for (int i = 0; i < n; i++) {
            Object r = w.run();
            h += r == null ? 1 : System.identityHashCode(r);
        }
        sink += h;
    }

    /** Prepares and measures one planned case; never throws. */
    static Outcome measure(Plan p, List<RaplProfiler.Domain> rapl) {
        try {
            Work w = Work.create(p.c());
            for (int i = 0; i < p.warmups(); i++) {
                batch(w, p.batch());
            }
            double[] ns = new double[p.iterations()];
            Map<String, double[]> energy = new LinkedHashMap<>();
            for (RaplProfiler.Domain d : rapl) {
                energy.put(d.name(), new double[p.iterations()]);
            }
            for (int i = 0; i < ns.length; i++) {
                long[] e0 = RaplProfiler.sample(rapl);
                long t0 = System.nanoTime();
                batch(w, p.batch());
                long t1 = System.nanoTime();
                long[] e1 = RaplProfiler.sample(rapl);
                ns[i] = (double) (t1 - t0) / p.batch();
                for (int d = 0; d < rapl.size(); d++) {
                    Double uj = RaplProfiler.perOp(e0[d], e1[d], rapl.get(d).range(), p.batch());
                    energy.get(rapl.get(d).name())[i] = uj == null ? -1 : uj;
                }
            }
            energy.values().removeIf(v -> java.util.Arrays.stream(v).anyMatch(x -> x < 0));
            return new Outcome(p.c(), ns, energy, null);
        } catch (NotSupportedException e) {
            return new Outcome(p.c(), null, null, "not supported: " + e.getMessage());
        } catch (Exception | LinkageError e) {
            return new Outcome(p.c(), null, null, "failed: " + Study.rootMessage(e));
        }
    }

    /** Writes plans as the JSON a fork reads. */
    static void writePlans(Path path, List<Plan> plans) throws IOException {
        JsonArray a = new JsonArray();
        for (Plan p : plans) {
            JsonObject o = new JsonObject();
            JsonObject params = new JsonObject();
            p.c().params().forEach(params::addProperty);
            o.add("params", params);
            o.addProperty("batch", p.batch());
            o.addProperty("warmups", p.warmups());
            o.addProperty("iterations", p.iterations());
            a.add(o);
        }
        Files.writeString(path, a.toString());
    }

    static List<Plan> readPlans(Path path) throws IOException {
        List<Plan> out = new ArrayList<>();
        for (JsonElement el : JsonParser.parseString(Files.readString(path)).getAsJsonArray()) {
            JsonObject o = el.getAsJsonObject();
            out.add(new Plan(Study.caseOf(o.getAsJsonObject("params")), o.get("batch").getAsInt(),
                    o.get("warmups").getAsInt(), o.get("iterations").getAsInt()));
        }
        return out;
    }

    static Outcome outcomeOf(JsonObject o) {
        Case c = Study.caseOf(o.getAsJsonObject("params"));
        if (o.has("error")) {
            return new Outcome(c, null, null, o.get("error").getAsString());
        }
        Gson g = new Gson();
        Map<String, double[]> energy = new LinkedHashMap<>();
        o.getAsJsonObject("energy").entrySet().forEach(e -> energy.put(e.getKey(), g.fromJson(e.getValue(),
                double[].class)));
        return new Outcome(c, g.fromJson(o.get("ns"), double[].class), energy, null);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: Harness PLAN.json FORK SEED OUT.json");
            System.exit(2);
        }
        List<Plan> plans = new ArrayList<>(readPlans(Path.of(args[0])));
        long seed = Long.parseLong(args[2]);
        Providers.install();
        List<RaplProfiler.Domain> rapl = RaplProfiler.unavailable() == null
                ? RaplProfiler.domains(RaplProfiler.root()) : List.of();
        Collections.shuffle(plans, new Random(seed));
        Gson g = new GsonBuilder().serializeSpecialFloatingPointValues().create();
        // One JSON object per line, flushed per case: a fork stopped for
        // its time limit keeps what it measured.
        try (var w = Files.newBufferedWriter(Path.of(args[3]))) {
            int i = 0;
            for (Plan p : plans) {
                long t0 = System.nanoTime();
                Outcome r = measure(p, rapl);
                double sec = (System.nanoTime() - t0) / 1e9;
                if (sec > 5) {
                    System.err.printf("fork %s: %s took %.0f s%n", args[1], p.c(), sec);
                }
                JsonObject o = new JsonObject();
                JsonObject params = new JsonObject();
                p.c().params().forEach(params::addProperty);
                o.add("params", params);
                if (r.error() != null) {
                    o.addProperty("error", r.error());
                } else {
                    o.add("ns", g.toJsonTree(r.ns()));
                    o.add("energy", g.toJsonTree(r.energy()));
                }
                w.write(o.toString());
                w.newLine();
                w.flush();
                if (++i % 50 == 0) {
                    System.err.printf("fork %s: %d/%d cases%n", args[1], i, plans.size());
                }
            }
        }
    }
}
