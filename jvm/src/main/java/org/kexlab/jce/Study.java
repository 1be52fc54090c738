package org.kexlab.jce;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The study's driver: {@code java -cp … org.kexlab.jce.Study [flags]}.
 *
 * <ol>
 * <li>loads the providers and prints what was loaded;</li>
 * <li>discovers the default transformations ({@link Discovery}) and writes
 *   defaults.txt and defaults.json;</li>
 * <li>prepares every case of the {@link Catalog} once in this JVM (a
 *   provider that is missing or lacks the algorithm makes the case "not
 *   supported", with the reason);</li>
 * <li>runs each supported case as its own JMH benchmark (a fork each) and
 *   writes all results, JMH's JSON format, to jmh.json. Cases that are not
 *   supported or failed are appended as entries without samples and a
 *   "kexlabNotSupported" reason; when RAPL is not readable every entry
 *   carries "kexlabEnergy": "not measured: …" (kexlab's importer reads
 *   both).</li>
 * </ol>
 *
 * Flags: -out DIR (out/providers), -wi N -w MS (warm-up iterations and
 * their length), -i N -r MS (measurement iterations), -f N (forks),
 * -filter REGEX (on "provider algorithm-size transformation op lengthB"),
 * -nosweep, -discover (discovery only), -list (print the cases, run
 * nothing), -budget SEC (cases not started within SEC seconds of the start
 * are recorded as not measured), -quick (tiny iterations, for trying
 * things out).
 */
public final class Study {
    private Study() {}

    /** The settings of a run. */
    static final class Settings {
        Path out = Path.of("out/providers");
        int warmups = 1, warmupMs = 300, iterations = 6, iterationMs = 100, forks = 1;
        Pattern filter;
        boolean sweep = true, discoverOnly, list;
        int budgetSec;
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
        for (String[] k : new String[][] {{"RSA", "2048"}, {"RSA", "3072"}, {"RSA", "4096"}, {"DSA", "2048"},
            {"EC", "256"}, {"EC", "384"}}) {
            Keys.pair(k[0], Integer.parseInt(k[1]));
        }

        List<Case> cases = new ArrayList<>();
        Map<Case, String> unsupported = new LinkedHashMap<>();
        for (Case c : Catalog.all(s.sweep)) {
            if (s.filter != null && !s.filter.matcher(c.toString()).find()) {
                continue;
            }
            String why = probe(c);
            if (why == null) {
                cases.add(c);
            } else {
                unsupported.put(c, why);
            }
        }
        System.out.printf("%d cases to measure, %d not supported%n", cases.size(), unsupported.size());
        if (s.list) {
            cases.forEach(c -> System.out.println("measure " + c));
            unsupported.forEach((c, why) -> System.out.println("skip " + c + ": " + why));
            return;
        }

        List<RunResult> results = new ArrayList<>();
        int i = 0;
        for (Case c : cases) {
            i++;
            long t = System.nanoTime();
            if (s.budgetSec > 0 && t - t0 > s.budgetSec * 1_000_000_000L) {
                unsupported.put(c, "not measured: the run's time budget of " + s.budgetSec + " s was spent");
                continue;
            }
            try {
                RunResult r = run(c, s, keydir, energy == null);
                results.add(r);
                System.out.printf("[%d/%d] %s: %.1f ns/op (%.1f s)%n", i, cases.size(), c,
                        r.getPrimaryResult().getScore(), (System.nanoTime() - t) / 1e9);
            } catch (RunnerException | RuntimeException e) {
                unsupported.put(c, "failed: " + rootMessage(e));
                System.out.printf("[%d/%d] %s: failed: %s%n", i, cases.size(), c, rootMessage(e));
            }
            if (i % 25 == 0) {
                write(s.out.resolve("jmh.json"), results, unsupported, energy, gson);
            }
        }
        write(s.out.resolve("jmh.json"), results, unsupported, energy, gson);
        System.out.printf("wrote %s: %d measured, %d not supported or failed, in %.0f s%n",
                s.out.resolve("jmh.json"), results.size(), unsupported.size(), (System.nanoTime() - t0) / 1e9);
    }

    /** Prepares c and runs it once; null when it works, else why not. */
    static String probe(Case c) {
        try {
            Work.create(c).run();
            return null;
        } catch (NotSupportedException e) {
            return "not supported: " + e.getMessage();
        } catch (Exception | LinkageError e) {
            return "failed: " + e;
        }
    }

    private static RunResult run(Case c, Settings s, Path keydir, boolean rapl) throws RunnerException {
        ChainedOptionsBuilder o = new OptionsBuilder()
                .include(Pattern.quote(PrimitiveBench.class.getName()) + "\\.run$")
                .forks(s.forks)
                .warmupIterations(s.warmups)
                .warmupTime(TimeValue.milliseconds(s.warmupMs))
                .measurementIterations(s.iterations)
                .measurementTime(TimeValue.milliseconds(s.iterationMs))
                .jvmArgsAppend("-Dkexlab.keydir=" + keydir, "-Xms256m", "-Xmx1g")
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
        c.params().forEach(o::param);
        if (rapl) {
            o.addProfiler(RaplProfiler.class);
        }
        var rs = new Runner(o.build()).run();
        if (rs.size() != 1) {
            throw new RunnerException("expected one result, got " + rs.size());
        }
        return rs.iterator().next();
    }

    private static String rootMessage(Throwable e) {
        while (e.getCause() != null) {
            e = e.getCause();
        }
        return e.toString();
    }

    /** Writes the JMH JSON of results plus entries for the cases in unsupported. */
    static void write(Path path, List<RunResult> results, Map<Case, String> unsupported, String energy, Gson gson)
            throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, ps).writeOut(results);
        }
        String text = buf.toString(StandardCharsets.UTF_8).trim();
        JsonArray arr = text.isEmpty() ? new JsonArray() : JsonParser.parseString(text).getAsJsonArray();
        for (Map.Entry<Case, String> e : unsupported.entrySet()) {
            JsonObject o = new JsonObject();
            o.addProperty("benchmark", PrimitiveBench.class.getName() + ".run");
            o.addProperty("mode", "avgt");
            o.addProperty("threads", 1);
            o.addProperty("forks", 0);
            o.addProperty("jdkVersion", System.getProperty("java.version"));
            o.addProperty("vmName", System.getProperty("java.vm.name"));
            JsonObject params = new JsonObject();
            e.getKey().params().forEach(params::addProperty);
            o.add("params", params);
            JsonObject pm = new JsonObject();
            pm.addProperty("scoreUnit", "ns/op");
            pm.add("rawData", new JsonArray());
            o.add("primaryMetric", pm);
            o.add("secondaryMetrics", new JsonObject());
            o.addProperty("kexlabNotSupported", e.getValue());
            arr.add(o);
        }
        if (energy != null) {
            for (JsonElement el : arr) {
                el.getAsJsonObject().addProperty("kexlabEnergy", "not measured: " + energy);
            }
        }
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.writeString(tmp, gson.toJson(arr) + "\n");
        Files.move(tmp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    static Settings parse(String[] args) {
        Settings s = new Settings();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-out" -> s.out = Path.of(args[++i]);
                case "-wi" -> s.warmups = Integer.parseInt(args[++i]);
                case "-w" -> s.warmupMs = Integer.parseInt(args[++i]);
                case "-i" -> s.iterations = Integer.parseInt(args[++i]);
                case "-r" -> s.iterationMs = Integer.parseInt(args[++i]);
                case "-f" -> s.forks = Integer.parseInt(args[++i]);
                case "-filter" -> s.filter = Pattern.compile(args[++i]);
                case "-nosweep" -> s.sweep = false;
                case "-discover" -> s.discoverOnly = true;
                case "-list" -> s.list = true;
                case "-budget" -> s.budgetSec = Integer.parseInt(args[++i]);
                case "-quick" -> {
                    s.warmups = 1;
                    s.warmupMs = 50;
                    s.iterations = 3;
                    s.iterationMs = 20;
                }
                default -> throw new IllegalArgumentException("unknown flag " + a
                        + " (flags: -out DIR -wi N -w MS -i N -r MS -f N -filter REGEX -nosweep -discover -list -budget SEC -quick)");
            }
        }
        return s;
    }
}
