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
 * providers, prepares and warms up every planned case, then measures in
 * rounds: one iteration of every case per round, in a new random order
 * each round (seeded), so that a case's iterations spread over the whole
 * fork and drift of the machine hits every provider and primitive alike.
 * An iteration is a batch of operations timed with System.nanoTime, its
 * score the mean time per operation; results go into a sink the JIT cannot
 * prove unused. Where RAPL is readable the package energy is read around
 * every iteration.
 *
 * <p>Why not one JMH fork per case, as before: JMH starts a JVM for every
 * benchmark and every fork, about a second each before warm-up; 450 cases
 * in 5 forks would spend the study's whole 20-minute budget on JVM
 * starts. Here a fork measures every case, and the forks give the
 * between-JVM variation (JIT decisions, heap layout) that JMH's forks give:
 * 5 forks of 3 rounds rather than 3 of 5, because that variation is the
 * larger (the same HMAC took 250 ns in two forks and 310 ns in a third).
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

    /** A case in a fork: its prepared work and what it measured so far, or why it stopped. */
    static final class Running {
        final Plan p;
        Work w;
        final List<Double> ns = new ArrayList<>();
        final Map<String, List<Double>> energy = new LinkedHashMap<>();
        String error;

        Running(Plan p) {
            this.p = p;
        }

        boolean active() {
            return error == null && ns.size() < p.iterations();
        }
    }

    /** Prepares a case and runs its warm-up; never throws. */
    static Running prepare(Plan p) {
        Running r = new Running(p);
        try {
            r.w = Work.create(p.c());
            for (int i = 0; i < p.warmups(); i++) {
                batch(r.w, p.batch());
            }
        } catch (Exception | LinkageError e) {
            r.error = why(e);
        }
        return r;
    }

    /** One measured iteration of r; never throws. */
    static void iterate(Running r, List<RaplProfiler.Domain> rapl) {
        try {
            long[] e0 = RaplProfiler.sample(rapl);
            long t0 = System.nanoTime();
            batch(r.w, r.p.batch());
            long t1 = System.nanoTime();
            long[] e1 = RaplProfiler.sample(rapl);
            r.ns.add((double) (t1 - t0) / r.p.batch());
            for (int d = 0; d < rapl.size(); d++) {
                Double uj = RaplProfiler.perOp(e0[d], e1[d], rapl.get(d).range(), r.p.batch());
                if (uj != null) {
                    r.energy.computeIfAbsent(rapl.get(d).name(), k -> new ArrayList<>()).add(uj);
                }
            }
        } catch (Exception | LinkageError e) {
            r.error = why(e);
        }
    }

    private static String why(Throwable e) {
        return e instanceof NotSupportedException ? "not supported: " + e.getMessage()
                : "failed: " + Study.rootMessage(e);
    }

    /** What r measured: its samples, the energy domains read in every iteration, or its error. */
    static Outcome outcome(Running r) {
        if (r.error != null && r.ns.isEmpty()) {
            return new Outcome(r.p.c(), null, null, r.error);
        }
        Map<String, double[]> energy = new LinkedHashMap<>();
        r.energy.forEach((d, v) -> {
            if (v.size() == r.ns.size()) {
                energy.put(d, v.stream().mapToDouble(Double::doubleValue).toArray());
            }
        });
        return new Outcome(r.p.c(), r.ns.stream().mapToDouble(Double::doubleValue).toArray(), energy, null);
    }

    /** Prepares and measures one planned case, its iterations back to back; never throws. */
    static Outcome measure(Plan p, List<RaplProfiler.Domain> rapl) {
        Running r = prepare(p);
        while (r.active()) {
            iterate(r, rapl);
        }
        return outcome(r);
    }

    /** Joins the outcomes of one case from one fork (one per round) into one. */
    static Outcome merge(List<Outcome> parts) {
        Case c = parts.get(0).c();
        List<Double> ns = new ArrayList<>();
        Map<String, List<Double>> energy = new LinkedHashMap<>();
        String error = null;
        for (Outcome o : parts) {
            if (o.error() != null) {
                error = o.error();
                continue;
            }
            for (double v : o.ns()) {
                ns.add(v);
            }
            o.energy().forEach((d, v) -> {
                for (double x : v) {
                    energy.computeIfAbsent(d, k -> new ArrayList<>()).add(x);
                }
            });
        }
        if (ns.isEmpty()) {
            return new Outcome(c, null, null, error == null ? "failed: no samples" : error);
        }
        Map<String, double[]> e = new LinkedHashMap<>();
        energy.forEach((d, v) -> {
            if (v.size() == ns.size()) {
                e.put(d, v.stream().mapToDouble(Double::doubleValue).toArray());
            }
        });
        return new Outcome(c, ns.stream().mapToDouble(Double::doubleValue).toArray(), e, null);
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
        Random rng = new Random(seed);
        Collections.shuffle(plans, rng);
        Gson g = new GsonBuilder().serializeSpecialFloatingPointValues().create();
        // Every case is prepared and warmed up, then measured in rounds: one
        // iteration of every case per round, in a new random order each
        // round, so that a case's iterations spread over the whole fork and
        // drift of the machine hits every case alike. One JSON line per
        // case and round, flushed per round: a fork stopped for its time
        // limit keeps what it measured.
        List<Running> running = new ArrayList<>();
        for (Plan p : plans) {
            running.add(prepare(p));
        }
        try (var w = Files.newBufferedWriter(Path.of(args[3]))) {
            for (Running r : running) {
                if (r.error != null) {
                    w.write(line(r.p.c(), null, null, r.error, g));
                    w.newLine();
                }
            }
            for (int round = 0; running.stream().anyMatch(Running::active); round++) {
                long t0 = System.nanoTime();
                List<Running> order = new ArrayList<>(running);
                Collections.shuffle(order, rng);
                for (Running r : order) {
                    if (!r.active()) {
                        continue;
                    }
                    int before = r.ns.size();
                    iterate(r, rapl);
                    if (r.error != null) {
                        w.write(line(r.p.c(), null, null, r.error, g));
                    } else {
                        Map<String, double[]> e = new LinkedHashMap<>();
                        r.energy.forEach((d, v) -> {
                            if (v.size() == r.ns.size()) {
                                e.put(d, new double[] {v.get(v.size() - 1)});
                            }
                        });
                        w.write(line(r.p.c(), new double[] {r.ns.get(before)}, e, null, g));
                    }
                    w.newLine();
                }
                w.flush();
                System.err.printf("fork %s: round %d in %.0f s%n", args[1], round + 1, (System.nanoTime() - t0) / 1e9);
            }
        }
    }

    private static String line(Case c, double[] ns, Map<String, double[]> energy, String error, Gson g) {
        JsonObject o = new JsonObject();
        JsonObject params = new JsonObject();
        c.params().forEach(params::addProperty);
        o.add("params", params);
        if (error != null) {
            o.addProperty("error", error);
        } else {
            o.add("ns", g.toJsonTree(ns));
            o.add("energy", g.toJsonTree(energy));
        }
        return o.toString();
    }
}
