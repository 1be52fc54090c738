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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The study's driver: {@code java -cp … org.kexlab.jce.Study [flags]}.
 *
 * <ol>
 * <li>loads the providers and prints what was loaded;</li>
 * <li>discovers the default transformations ({@link Discovery}) and writes
 *   defaults.txt and defaults.json;</li>
 * <li>prepares every case of the {@link Catalog} once in this JVM and
 *   calibrates its cost (a provider that is missing or lacks the algorithm
 *   makes the case "not supported: …"; one that throws, "failed: …");</li>
 * <li>plans the run to fit the budget: -forks JVMs, each measuring every
 *   case ⌈n/forks⌉ times (n ≥ 15 by default), an iteration being a batch
 *   of operations of about -r ms; when the plan is over budget it shrinks
 *   the iteration time and the warm-up first, and only then leaves out the
 *   most expensive cases, each with the reason;</li>
 * <li>runs the forks one after another ({@link Harness}: each shuffles the
 *   cases with its own seed), recording the load average around each;</li>
 * <li>writes jmh.json in JMH's JSON format (one entry per case; rawData one
 *   array per fork), with kexlab's fields: "kexlabNotSupported" (why a case
 *   has no samples), "kexlabEnergy", "kexlabAlias" (the A/A controls: a
 *   case measuring the same service as another under a second name) and
 *   "kexlabMachine" (the machine, the load, the settings and the counts);
 *   kexlab's importer reads them.</li>
 * </ol>
 *
 * Flags: -out DIR (out/providers), -forks N (5), -n N (fewest samples per
 * case over all forks, 15), -r MS (target iteration time, 25), -wi N
 * (warm-up iterations per case and fork, 2), -budget SEC (the whole run,
 * 1080), -seed N, -filter REGEX (on "provider algorithm-size
 * transformation op lengthB"), -nosweep, -discover (discovery only), -list
 * (print the cases, run nothing), -quick (1 fork, n 3, 2 ms iterations:
 * for trying things out).
 */
public final class Study {
    private Study() {}

    /** The settings of a run. */
    static final class Settings {
        Path out = Path.of("out/providers");
        int warmups = 2, iterationMs = 25, forks = 5, n = 15;
        long seed = 1;
        Pattern filter;
        boolean sweep = true, discoverOnly, list;
        int budgetSec = 1080;
    }

    public static void main(String[] args) throws Exception {
        Settings s = parse(args);
        long t0 = System.nanoTime();
        Files.createDirectories(s.out);
        Gson gson = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

        Providers.install();
        System.out.println("Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name")
                + ")");
        for (String d : Providers.describe()) {
            System.out.println("provider " + d);
        }
        String energy = RaplProfiler.unavailable();
        System.out.println("energy: " + (energy == null ? "RAPL per JMH iteration" : "not measured: " + energy));

        List<Discovery.Row> rows = Discovery.table();
        String table = Discovery.text(rows);
        System.out.println("\nDefault transformations (observed):\n" + table);
        Files.writeString(s.out.resolve("defaults.txt"), table);
        List<Map<String, String>> json = new ArrayList<>();
        rows.forEach(r -> json.add(r.toMap()));
        Files.writeString(s.out.resolve("defaults.json"), gson.toJson(json) + "\n");
        if (s.discoverOnly) {
            return;
        }

        Path keydir = s.out.resolve("keys").toAbsolutePath();
        System.setProperty("kexlab.keydir", keydir.toString());
        for (String[] k : new String[][] {{"RSA", "512"}, {"RSA", "1024"}, {"RSA", "2048"}, {"RSA", "3072"},
            {"RSA", "4096"}, {"DSA", "1024"}, {"DSA", "2048"}, {"EC", "256"}, {"EC", "384"}}) {
            Keys.pair(k[0], Integer.parseInt(k[1]));
        }

        // Prepare and calibrate every case here.
        Map<Case, String> notMeasured = new LinkedHashMap<>();
        Map<Case, double[]> costs = new LinkedHashMap<>(); // {ns per op, ns to prepare}
        Map<Case, Work> works = new LinkedHashMap<>();
        for (Case c : Catalog.all(s.sweep)) {
            if (s.filter != null && !s.filter.matcher(c.toString()).find()) {
                continue;
            }
            if (s.list) {
                works.put(c, null);
                continue;
            }
            try {
                long t = System.nanoTime();
                Work w = Work.create(c);
                long prep = System.nanoTime() - t;
                costs.put(c, new double[] {calibrate(w), prep});
                works.put(c, w);
            } catch (NotSupportedException e) {
                notMeasured.put(c, "not supported: " + e.getMessage());
            } catch (Exception | LinkageError e) {
                notMeasured.put(c, "failed: " + rootMessage(e));
            }
        }
        if (s.list) {
            works.keySet().forEach(c -> System.out.println("case " + c));
            return;
        }
        Map<Case, String> aliases = aliases(works, rows);
        works.clear(); // the forks prepare their own
        long spent = System.nanoTime() - t0;
        Plan plan = plan(costs, s, s.budgetSec * 1e9 - spent);
        plan.dropped.forEach(notMeasured::put);
        System.out.printf("%d cases: %d to measure (%d forks × %d iterations of ~%d ms, %d warm-up), %d not supported"
                + " or failed, %d left out by the budget; planned %.0f s%n", costs.size() + notMeasured.size()
                - plan.dropped.size(), plan.plans.size(), s.forks, plan.iterations, plan.iterationMs, plan.warmups,
                notMeasured.size() - plan.dropped.size(), plan.dropped.size(), plan.seconds);

        Path planFile = s.out.resolve("plan.json");
        Harness.writePlans(planFile, plan.plans);
        Map<Case, List<Harness.Outcome>> outcomes = new LinkedHashMap<>();
        List<String> loads = new ArrayList<>();
        loads.add(loadavg());
        for (int f = 1; f <= s.forks; f++) {
            Path out = s.out.resolve("fork-" + f + ".json");
            long tf = System.nanoTime();
            String err = fork(planFile, f, s.seed * 1000 + f, out, keydir, plan.seconds / s.forks);
            loads.add(loadavg());
            if (err != null) {
                System.out.printf("fork %d: %s; keeping the cases it finished%n", f, err);
            }
            if (Files.exists(out)) {
                Map<Case, List<Harness.Outcome>> parts = new LinkedHashMap<>();
                for (String line : Files.readAllLines(out)) {
                    if (line.isBlank()) {
                        continue;
                    }
                    try {
                        Harness.Outcome o = Harness.outcomeOf(JsonParser.parseString(line).getAsJsonObject());
                        parts.computeIfAbsent(o.c(), k -> new ArrayList<>()).add(o);
                    } catch (RuntimeException e) {
                        System.out.printf("fork %d: a truncated line left out: %s%n", f, e.getMessage());
                    }
                }
                parts.forEach((c, l) -> outcomes.computeIfAbsent(c, k -> new ArrayList<>()).add(Harness.merge(l)));
                Files.delete(out);
            }
            System.out.printf("fork %d of %d: %.0f s, load average %s%n", f, s.forks, (System.nanoTime() - tf) / 1e9,
                    loads.get(loads.size() - 1));
        }
        int measured = 0, failed = 0;
        for (Harness.Plan p : plan.plans) {
            List<Harness.Outcome> os = outcomes.getOrDefault(p.c(), List.of());
            if (os.stream().noneMatch(o -> o.error() == null)) {
                String why = os.isEmpty() ? "failed: no fork returned it" : os.get(0).error();
                notMeasured.put(p.c(), why);
                failed++;
            } else {
                measured++;
            }
        }
        int unsupported = (int) notMeasured.values().stream().filter(v -> v.startsWith("not supported")).count();
        int budget = plan.dropped.size();
        failed = notMeasured.size() - unsupported - budget;
        JsonObject machine = machine(s, loads, t0, measured, unsupported, failed, budget);
        write(s.out.resolve("jmh.json"), outcomes, notMeasured, aliases, energy, machine, gson);
        System.out.printf("wrote %s: %d cases = %d measured + %d not supported + %d failed + %d left out by the budget,"
                + " in %.0f s%n", s.out.resolve("jmh.json"), measured + unsupported + failed + budget, measured,
                unsupported, failed, budget, (System.nanoTime() - t0) / 1e9);
    }

    /**
     * ns per operation of a prepared case, warm: the first operation (cold:
     * class loading, first compilation) is not counted; an operation that
     * still takes 100 ms or more is timed once, others for at least 20 ms.
     */
    static double calibrate(Work w) throws Exception {
        w.run();
        long t = System.nanoTime();
        w.run();
        long one = System.nanoTime() - t;
        if (one >= 100_000_000L) {
            return one;
        }
        int ops = 0;
        t = System.nanoTime();
        long el;
        do {
            w.run();
            ops++;
            el = System.nanoTime() - t;
        } while (el < 20_000_000L && ops < 100_000);
        return (double) el / ops;
    }

    /** The plan of a run. */
    static final class Plan {
        List<Harness.Plan> plans = new ArrayList<>();
        Map<Case, String> dropped = new LinkedHashMap<>();
        int iterations, warmups, iterationMs;
        double seconds;
    }

    /** JVM start and provider loading per fork, in ns (measured: about 1.5 s here). */
    static final double FORK_NS = 3e9;

    /**
     * Fits the cases into budgetNs: ⌈n/forks⌉ iterations per fork; the
     * iteration time and the warm-up shrink first (-r, 10, 5, 2 ms; warm-up
     * 2, 1), then the most expensive cases are left out, each with the
     * reason.
     */
    static Plan plan(Map<Case, double[]> costs, Settings s, double budgetNs) {
        Plan p = new Plan();
        p.iterations = (s.n + s.forks - 1) / s.forks;
        List<int[]> steps = new ArrayList<>();
        for (int ms : new int[] {s.iterationMs, 10, 5, 2}) {
            for (int wu : new int[] {s.warmups, 1}) {
                if (ms <= s.iterationMs && wu <= s.warmups) {
                    steps.add(new int[] {ms, wu});
                }
            }
        }
        List<Case> keep = new ArrayList<>(costs.keySet());
        keep.sort((a, b) -> Double.compare(costs.get(b)[0], costs.get(a)[0])); // most expensive first
        for (int drop = 0; ; drop++) {
            List<Case> cases = keep.subList(drop, keep.size());
            for (int[] st : steps) {
                double total = s.forks * FORK_NS;
                for (Case c : cases) {
                    double[] k = costs.get(c);
                    total += s.forks * (k[1] + (p.iterations + warmups(k[0], st[1])) * Math.max(st[0] * 1e6, k[0]));
                }
                if (total <= budgetNs || cases.isEmpty()) {
                    p.iterationMs = st[0];
                    p.warmups = st[1];
                    p.seconds = total / 1e9;
                    for (Case c : keep.subList(0, drop)) {
                        p.dropped.put(c, String.format("not measured: the run's time budget of %d s (this case needs"
                                + " about %.0f s for n = %d)", s.budgetSec, s.forks * (p.iterations + 1)
                                * costs.get(c)[0] / 1e9, p.iterations * s.forks));
                    }
                    for (Case c : cases) {
                        int batch = (int) Math.max(1, Math.min(1_000_000, st[0] * 1e6 / costs.get(c)[0]));
                        p.plans.add(new Harness.Plan(c, batch, warmups(costs.get(c)[0], st[1]), p.iterations));
                    }
                    return p;
                }
            }
        }
    }

    /**
     * Warm-up iterations of a case costing costNs per operation: none for
     * an operation of 100 ms or more (key pairs, DSA parameters), whose
     * own loops the JIT compiles while it runs; wu otherwise.
     */
    static int warmups(double costNs, int wu) {
        return costNs >= 100e6 ? 0 : wu;
    }

    /** Runs fork f; null when it finished, else why not (its output holds the cases it finished). */
    static String fork(Path plan, int f, long seed, Path out, Path keydir, double plannedSec) throws IOException,
            InterruptedException {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process pr = new ProcessBuilder(javaBin, "-Xms256m", "-Xmx1g", "-Dkexlab.keydir=" + keydir, "-cp",
                System.getProperty("java.class.path"), Harness.class.getName(), plan.toString(), Integer.toString(f),
                Long.toString(seed), out.toString()).inheritIO().start();
        long limit = (long) (2 * plannedSec + 300);
        if (!pr.waitFor(limit, java.util.concurrent.TimeUnit.SECONDS)) {
            pr.destroyForcibly();
            return "killed after " + limit + " s (planned " + Math.round(plannedSec) + " s)";
        }
        if (pr.exitValue() != 0) {
            return "exited with status " + pr.exitValue();
        }
        return null;
    }

    /**
     * The A/A controls: each alias case whose provider maps both names to
     * one service (Provider.getService), and each provider whose default
     * "RSA" cipher is PKCS#1 v1.5 encryption (Discovery) with
     * RSA/ECB/PKCS1Padding. Maps the alias case to the canonical
     * transformation and the reason.
     */
    static Map<Case, String> aliases(Map<Case, Work> works, List<Discovery.Row> rows) {
        Map<Case, String> out = new LinkedHashMap<>();
        for (Map.Entry<Case, Work> e : works.entrySet()) {
            Case c = e.getKey();
            String canon = Catalog.ALIASES.get(c.transformation());
            if (canon == null || e.getValue() == null) {
                continue;
            }
            Case other = new Case(c.provider(), c.algorithm(), c.keySize(), canon, c.dataLength(), c.op());
            Work w = works.get(other);
            String type = c.op().equals(Case.MAC) ? "Mac" : "Signature";
            var p = e.getValue().provider;
            if (w != null && w.provider == p && p.getService(type, c.transformation()) != null
                    && p.getService(type, c.transformation()) == p.getService(type, canon)) {
                out.put(c, canon + "|" + p.getName() + " maps both names to one " + type + " service ("
                        + p.getService(type, canon).getClassName() + ")");
            }
        }
        for (Discovery.Row r : rows) {
            if (r.algorithm().equals("RSA") && r.padding().startsWith("PKCS#1 v1.5 (type 2)")) {
                for (String op : new String[] {Case.ENCRYPT, Case.DECRYPT}) {
                    Case c = new Case(r.provider(), "RSA", 2048, "RSA", Catalog.STUDY_LENGTH, op);
                    Case o = new Case(r.provider(), "RSA", 2048, Catalog.RSA_PKCS1, Catalog.STUDY_LENGTH, op);
                    if (works.get(c) != null && works.get(o) != null && works.get(c).provider == works.get(o).provider) {
                        out.put(c, Catalog.RSA_PKCS1 + "|" + r.implementedBy()
                                + "'s default RSA cipher is PKCS#1 v1.5 encryption (observed), the same as "
                                + Catalog.RSA_PKCS1);
                    }
                }
            }
        }
        return out;
    }

    static String loadavg() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "not readable: " + e.getMessage();
        }
    }

    /** The machine, the settings, the load and the counts, for kexlab's importer. */
    static JsonObject machine(Settings s, List<String> loads, long t0, int measured, int unsupported, int failed,
            int budget) {
        JsonObject m = new JsonObject();
        m.addProperty("cores", Runtime.getRuntime().availableProcessors());
        m.addProperty("cpuModel", cpuModel());
        m.addProperty("os", System.getProperty("os.name"));
        m.addProperty("arch", System.getProperty("os.arch"));
        m.addProperty("kernel", System.getProperty("os.version"));
        m.addProperty("java", System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")");
        m.addProperty("time", java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        m.addProperty("loadStart", loads.get(0));
        m.addProperty("loadEnd", loads.get(loads.size() - 1));
        JsonArray la = new JsonArray();
        loads.forEach(la::add);
        m.add("loadPerFork", la);
        m.addProperty("forks", s.forks);
        m.addProperty("n", s.n);
        m.addProperty("seed", s.seed);
        m.addProperty("budgetSec", s.budgetSec);
        m.addProperty("seconds", Math.round((System.nanoTime() - t0) / 1e9));
        m.addProperty("measured", measured);
        m.addProperty("unsupported", unsupported);
        m.addProperty("failed", failed);
        m.addProperty("budget", budget);
        return m;
    }

    static String cpuModel() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    /** The case of a params object (as Case.params writes it). */
    static Case caseOf(JsonObject p) {
        return new Case(p.get("provider").getAsString(), p.get("algorithm").getAsString(),
                Integer.parseInt(p.get("keySize").getAsString()), p.get("transformation").getAsString(),
                Integer.parseInt(p.get("dataLength").getAsString()), p.get("op").getAsString());
    }

    static String rootMessage(Throwable e) {
        while (e.getCause() != null) {
            e = e.getCause();
        }
        return e.toString();
    }

    /**
     * Writes jmh.json: an entry per measured case (rawData: one array of ns
     * per operation per fork; RAPL domains as secondary metrics in µJ/op),
     * then one per case not measured, with the reason.
     */
    static void write(Path path, Map<Case, List<Harness.Outcome>> outcomes, Map<Case, String> notMeasured,
            Map<Case, String> aliases, String energy, JsonObject machine, Gson gson) throws IOException {
        JsonArray arr = new JsonArray();
        for (Map.Entry<Case, List<Harness.Outcome>> e : outcomes.entrySet()) {
            if (notMeasured.containsKey(e.getKey())) {
                continue;
            }
            JsonArray raw = new JsonArray();
            Map<String, JsonArray> rapl = new LinkedHashMap<>();
            for (Harness.Outcome o : e.getValue()) {
                if (o.error() != null) {
                    continue;
                }
                raw.add(gson.toJsonTree(o.ns()));
                o.energy().forEach((d, v) -> rapl.computeIfAbsent(d, k -> new JsonArray()).add(gson.toJsonTree(v)));
            }
            JsonObject entry = entry(e.getKey(), raw);
            JsonObject sec = new JsonObject();
            rapl.forEach((d, v) -> {
                JsonObject m = new JsonObject();
                m.addProperty("scoreUnit", "uJ/op");
                m.add("rawData", v);
                sec.add(RaplProfiler.PREFIX + d, m);
            });
            entry.add("secondaryMetrics", sec);
            arr.add(entry);
        }
        for (Map.Entry<Case, String> e : notMeasured.entrySet()) {
            JsonObject o = entry(e.getKey(), new JsonArray());
            o.addProperty("kexlabNotSupported", e.getValue());
            arr.add(o);
        }
        for (JsonElement el : arr) {
            JsonObject o = el.getAsJsonObject();
            String alias = aliases.get(caseOf(o.getAsJsonObject("params")));
            if (alias != null) {
                JsonObject a = new JsonObject();
                a.addProperty("of", alias.substring(0, alias.indexOf('|')));
                a.addProperty("why", alias.substring(alias.indexOf('|') + 1));
                o.add("kexlabAlias", a);
            }
            if (energy != null) {
                o.addProperty("kexlabEnergy", "not measured: " + energy);
            }
            o.add("kexlabMachine", machine);
        }
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.writeString(tmp, gson.toJson(arr) + "\n");
        Files.move(tmp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static JsonObject entry(Case c, JsonArray raw) {
        JsonObject o = new JsonObject();
        o.addProperty("benchmark", PrimitiveBench.class.getName() + ".run");
        o.addProperty("mode", "avgt");
        o.addProperty("threads", 1);
        o.addProperty("forks", raw.size());
        o.addProperty("jdkVersion", System.getProperty("java.version"));
        o.addProperty("vmName", System.getProperty("java.vm.name"));
        JsonObject params = new JsonObject();
        c.params().forEach(params::addProperty);
        o.add("params", params);
        JsonObject pm = new JsonObject();
        pm.addProperty("scoreUnit", "ns/op");
        pm.add("rawData", raw);
        o.add("primaryMetric", pm);
        o.add("secondaryMetrics", new JsonObject());
        return o;
    }

    private static int positive(String flag, String v) {
        int n = Integer.parseInt(v);
        if (n < 1) {
            throw new IllegalArgumentException(flag + " " + v + ": must be at least 1");
        }
        return n;
    }

    static Settings parse(String[] args) {
        Settings s = new Settings();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-out" -> s.out = Path.of(args[++i]);
                case "-forks" -> s.forks = positive(a, args[++i]);
                case "-n" -> s.n = positive(a, args[++i]);
                case "-r" -> s.iterationMs = positive(a, args[++i]);
                case "-wi" -> s.warmups = positive(a, args[++i]);
                case "-budget" -> s.budgetSec = positive(a, args[++i]);
                case "-seed" -> s.seed = Long.parseLong(args[++i]);
                case "-filter" -> s.filter = Pattern.compile(args[++i]);
                case "-nosweep" -> s.sweep = false;
                case "-discover" -> s.discoverOnly = true;
                case "-list" -> s.list = true;
                case "-quick" -> {
                    s.forks = 1;
                    s.n = 3;
                    s.iterationMs = 2;
                    s.warmups = 1;
                }
                default -> throw new IllegalArgumentException("unknown flag " + a
                        + " (flags: -out DIR -forks N -n N -r MS -wi N -budget SEC -seed N -filter REGEX -nosweep"
                        + " -discover -list -quick)");
            }
        }
        return s;
    }
}
