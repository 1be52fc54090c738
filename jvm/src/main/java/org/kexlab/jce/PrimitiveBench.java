package org.kexlab.jce;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The operation of a {@link Case} as a JMH benchmark, named by its
 * parameters. The study no longer runs it ({@link Study} measures every
 * case in its own forks with {@link Harness}: one JMH fork per case would
 * spend the budget on JVM starts), but its entries in jmh.json keep this
 * benchmark's name, and it remains for timing one case under JMH by hand,
 * with that case's parameters only. Average time per operation, in
 * nanoseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PrimitiveBench {
    @Param({"JDK"})
    public String provider;

    @Param({"AES"})
    public String algorithm;

    @Param({"128"})
    public int keySize;

    @Param({"AES/GCM/NoPadding"})
    public String transformation;

    @Param({"100"})
    public int dataLength;

    @Param({"encrypt"})
    public String op;

    private Work work;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        Providers.install(provider);
        work = Work.create(new Case(provider, algorithm, keySize, transformation, dataLength, op));
    }

    @Benchmark
    public Object run() throws Exception {
        return work.run();
    }
}
