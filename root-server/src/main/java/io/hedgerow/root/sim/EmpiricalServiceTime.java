package io.hedgerow.root.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A service time drawn from a measured distribution: the percentile table of an HdrHistogram
 * ({@code outputPercentileDistribution}'s text, as the load generator and {@code simulate --out}
 * write them, values in milliseconds): for a replay, the leaf's own service time the root exports
 * on {@code /metrics/leaves} and the load generator saves per phase ({@code
 * <phase>-leaves/leaf-N-search-service.hgrm}, or {@code all-search-service.hgrm} merged); a
 * whole-search {@code .hgrm} is not a service time. A draw takes a uniform percentile
 * and interpolates linearly between the two rows around it, so a replay keeps the measured tail up
 * to the table's resolution (the last row is the measured maximum).
 */
final class EmpiricalServiceTime implements ServiceTime {
    private final double[] quantiles;
    private final double[] nanos;
    private final double mean;
    private final String source;

    EmpiricalServiceTime(double[] quantiles, double[] nanos, String source) {
        if (quantiles.length < 2 || quantiles.length != nanos.length) {
            throw new IllegalArgumentException(source + ": " + quantiles.length + " percentile rows (expected: at least 2)");
        }
        this.quantiles = quantiles;
        this.nanos = nanos;
        this.source = source;
        double sum = 0;
        for (int i = 1; i < quantiles.length; i++) {
            sum += (quantiles[i] - quantiles[i - 1]) * (nanos[i] + nanos[i - 1]) / 2;
        }
        this.mean = sum / (quantiles[quantiles.length - 1] - quantiles[0]);
    }

    /** Reads a percentile table: rows of {@code value percentile count 1/(1-percentile)}, values in ms. */
    static EmpiricalServiceTime read(Path file) throws IOException {
        return parse(Files.readAllLines(file), file.toString());
    }

    static EmpiricalServiceTime parse(List<String> lines, String source) {
        List<double[]> rows = new ArrayList<>();
        for (String line : lines) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length < 3 || !Character.isDigit(fields[0].charAt(0))) {
                continue; // the header, the summary lines at the end
            }
            double valueMillis = Double.parseDouble(fields[0]);
            double quantile = Double.parseDouble(fields[1]);
            if (!rows.isEmpty() && quantile <= rows.getLast()[0]) {
                rows.getLast()[1] = valueMillis; // the same percentile again (the maximum's row): keep the larger value
                continue;
            }
            rows.add(new double[] {quantile, valueMillis});
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException(source + ": no percentile rows (expected: an HdrHistogram percentile"
                    + " distribution, 'Value Percentile TotalCount 1/(1-Percentile)', values in ms)");
        }
        if (rows.getFirst()[0] > 0) {
            rows.addFirst(new double[] {0, rows.getFirst()[1]});
        }
        if (rows.getLast()[0] < 1) {
            rows.add(new double[] {1, rows.getLast()[1]});
        }
        double[] quantiles = new double[rows.size()];
        double[] nanos = new double[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            quantiles[i] = rows.get(i)[0];
            nanos[i] = rows.get(i)[1] * 1e6;
        }
        return new EmpiricalServiceTime(quantiles, nanos, source);
    }

    @Override
    public long sampleNanos(SplittableRandom random) {
        double u = random.nextDouble();
        int low = 0;
        int high = quantiles.length - 1;
        while (high - low > 1) {
            int mid = (low + high) >>> 1;
            if (quantiles[mid] <= u) {
                low = mid;
            } else {
                high = mid;
            }
        }
        double span = quantiles[high] - quantiles[low];
        double along = span <= 0 ? 0 : (u - quantiles[low]) / span;
        return (long) (nanos[low] + along * (nanos[high] - nanos[low]));
    }

    @Override
    public double meanNanos() {
        return mean;
    }

    @Override
    public String describe() {
        return "empirical:" + source;
    }
}
