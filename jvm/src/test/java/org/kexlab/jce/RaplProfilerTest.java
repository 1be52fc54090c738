package org.kexlab.jce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RAPL reader on a fake powercap tree (the layout of the Linux powercap sysfs ABI). */
class RaplProfilerTest {
    @TempDir
    Path root;

    private void zone(String dir, String name, long energy, long range) throws Exception {
        Path z = Files.createDirectories(root.resolve(dir));
        Files.writeString(z.resolve("name"), name + "\n");
        Files.writeString(z.resolve("energy_uj"), energy + "\n");
        Files.writeString(z.resolve("max_energy_range_uj"), range + "\n");
    }

    @Test
    void domains() throws Exception {
        zone("intel-rapl:0", "package-0", 1000, 262143328850L);
        zone("intel-rapl:0:0", "core", 500, 262143328850L);
        Files.createDirectories(root.resolve("dtpm"));
        List<RaplProfiler.Domain> d = RaplProfiler.domains(root);
        assertEquals(2, d.size());
        assertEquals("package-0", d.get(0).name());
        assertEquals("core", d.get(1).name());
        assertEquals(262143328850L, d.get(0).range());
    }

    @Test
    void unavailableReasons() throws Exception {
        String old = System.getProperty("kexlab.powercap");
        try {
            System.setProperty("kexlab.powercap", root.resolve("missing").toString());
            assertTrue(RaplProfiler.unavailable().contains("does not exist"));
            System.setProperty("kexlab.powercap", root.toString());
            assertTrue(RaplProfiler.unavailable().contains("no readable RAPL"));
            zone("intel-rapl:0", "package-0", 1, 10);
            assertNull(RaplProfiler.unavailable());
        } finally {
            if (old == null) {
                System.clearProperty("kexlab.powercap");
            } else {
                System.setProperty("kexlab.powercap", old);
            }
        }
    }

    @Test
    void perOpWrapsAround() {
        assertEquals(2.5, RaplProfiler.perOp(100, 110, 1000, 4));
        assertEquals(5.0, RaplProfiler.perOp(995, 5, 1000, 2)); // 995 → 1000 ≡ 0 → 5: 10 µJ
        assertNull(RaplProfiler.perOp(995, 5, Long.MAX_VALUE, 3));
        assertNull(RaplProfiler.perOp(-1, 5, 1000, 3));
        assertNull(RaplProfiler.perOp(1, 5, 1000, 0));
        assertNotNull(RaplProfiler.perOp(1, 1, 1000, 1));
    }
}
