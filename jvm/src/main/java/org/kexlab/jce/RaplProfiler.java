package org.kexlab.jce;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler that reads the RAPL energy counters of the Linux powercap
 * interface (/sys/class/powercap/intel-rapl:N[:M]/energy_uj, with the
 * domain's "name" and "max_energy_range_uj" beside it) before and after
 * every iteration, and reports the energy per operation of each domain as
 * a secondary metric "·rapl.DOMAIN" in µJ/op (a counter that wrapped
 * around is corrected by its range). Nothing is modelled: where the
 * counters are not readable the profiler is not used at all and the run
 * records why ({@link #unavailable}). The counters measure the whole
 * package, other processes included.
 *
 * <p>The root directory can be changed with the system property
 * {@code kexlab.powercap} (tests use a fake tree).
 */
public final class RaplProfiler implements InternalProfiler {
    /** Secondary metric prefix. */
    public static final String PREFIX = "·rapl.";

    private final List<Domain> domains;
    private long[] before;

    /** One RAPL domain. */
    record Domain(String name, Path energy, long range) {}

    public RaplProfiler() {
        List<Domain> d;
        try {
            d = domains(root());
        } catch (IOException e) {
            d = List.of();
        }
        domains = d;
    }

    static Path root() {
        return Path.of(System.getProperty("kexlab.powercap", "/sys/class/powercap"));
    }

    /**
     * The readable RAPL domains under root (package domains first level,
     * their subdomains named "package-0/core" etc. are listed by their own
     * name).
     */
    static List<Domain> domains(Path root) throws IOException {
        List<Domain> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(root)) {
            for (Path z : (Iterable<Path>) s.sorted()::iterator) {
                String zn = z.getFileName().toString();
                if (!zn.startsWith("intel-rapl:") && !zn.startsWith("amd-rapl:")) {
                    continue;
                }
                Path e = z.resolve("energy_uj");
                if (!Files.isReadable(e)) {
                    continue;
                }
                read(e); // must really be readable (often root-only)
                String name = Files.readString(z.resolve("name")).trim();
                long range = Long.MAX_VALUE;
                try {
                    range = read(z.resolve("max_energy_range_uj"));
                } catch (IOException | NumberFormatException ex) {
                    // no wrap-around correction
                }
                final String base = name;
                if (out.stream().anyMatch(x -> x.name.equals(base))) {
                    name = base + "@" + zn;
                }
                out.add(new Domain(name, e, range));
            }
        }
        return out;
    }

    /**
     * Why energy cannot be measured on this machine, or null when it can.
     */
    public static String unavailable() {
        Path root = root();
        if (!Files.isDirectory(root)) {
            return root + " does not exist (no powercap driver, or not exposed to this container)";
        }
        try {
            if (domains(root).isEmpty()) {
                return "no readable RAPL energy_uj under " + root
                        + " (no intel-rapl/amd-rapl zones, or readable by root only)";
            }
        } catch (IOException | RuntimeException e) {
            return "cannot read " + root + ": " + e;
        }
        return null;
    }

    static long read(Path p) throws IOException {
        return Long.parseLong(Files.readString(p).trim());
    }

    private long[] sample() {
        return sample(domains);
    }

    /** The counters of domains now (-1 for one that could not be read). */
    static long[] sample(List<Domain> domains) {
        long[] v = new long[domains.size()];
        for (int i = 0; i < v.length; i++) {
            try {
                v[i] = read(domains.get(i).energy);
            } catch (IOException | NumberFormatException e) {
                v[i] = -1;
            }
        }
        return v;
    }

    @Override
    public void beforeIteration(BenchmarkParams bp, IterationParams ip) {
        before = sample();
    }

    @Override
    @SuppressWarnings("rawtypes") // the signature of InternalProfiler
    public Collection<? extends Result> afterIteration(BenchmarkParams bp, IterationParams ip,
            IterationResult ir) {
        long[] after = sample();
        List<ScalarResult> out = new ArrayList<>();
        long ops = ir.getMetadata() == null ? 0 : ir.getMetadata().getMeasuredOps();
        if (before == null || ops <= 0) {
            return out;
        }
        for (int i = 0; i < after.length; i++) {
            Double uj = perOp(before[i], after[i], domains.get(i).range, ops);
            if (uj != null) {
                out.add(new ScalarResult(PREFIX + domains.get(i).name, uj, "uJ/op", AggregationPolicy.AVG));
            }
        }
        return out;
    }

    /** Energy per operation between two counter readings, null when unknown. */
    static Double perOp(long before, long after, long range, long ops) {
        if (before < 0 || after < 0 || ops <= 0) {
            return null;
        }
        long d = after - before;
        if (d < 0) {
            if (range == Long.MAX_VALUE) {
                return null;
            }
            d += range;
        }
        return (double) d / ops;
    }

    @Override
    public String getDescription() {
        return "RAPL energy per operation from /sys/class/powercap";
    }
}
