package org.kexlab.jce;

import java.util.List;

/** Plain-text tables. */
final class Text {
    private Text() {}

    /** Left-aligned columns separated by two spaces; the first row is the header. */
    static String table(List<String[]> rows) {
        int cols = rows.get(0).length;
        int[] w = new int[cols];
        for (String[] r : rows) {
            for (int i = 0; i < cols; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int j = 0; j < rows.size(); j++) {
            String[] r = rows.get(j);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < cols; i++) {
                line.append(String.format("%-" + Math.max(1, w[i]) + "s", r[i]));
                if (i < cols - 1) {
                    line.append("  ");
                }
            }
            sb.append(line.toString().stripTrailing()).append('\n');
            if (j == 0) {
                int total = 0;
                for (int x : w) {
                    total += x + 2;
                }
                sb.append("-".repeat(Math.max(0, total - 2))).append('\n');
            }
        }
        return sb.toString();
    }
}
