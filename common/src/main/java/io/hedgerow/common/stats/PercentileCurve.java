package io.hedgerow.common.stats;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The points of a latency-by-percentile curve, as HdrHistogram's own plots draw it: x = 1 / (1 - p)
 * on a log axis (so 90%, 99%, 99.9% are evenly spaced), y = latency in ms. The load generator's and
 * the simulator's charts both draw these.
 */
public final class PercentileCurve {
    /** Percentile steps per halving of the distance to 100% ({@link Histogram#percentiles(int)}). */
    private static final int TICKS_PER_HALF_DISTANCE = 5;

    private PercentileCurve() {
    }

    /**
     * x = 1 / (1 - p) for each percentile p the histogram's percentile iteration visits, y = latency
     * in ms, from x = 1 (the minimum) to x = count (the maximum); two empty rows for no values.
     */
    public static double[][] points(Histogram latencyMicros) {
        long count = latencyMicros.getTotalCount();
        if (count == 0) {
            return new double[][] {{}, {}};
        }
        List<double[]> points = new ArrayList<>();
        points.add(new double[] {1, latencyMicros.getMinValue() / 1000.0});
        for (HistogramIterationValue value : latencyMicros.percentiles(TICKS_PER_HALF_DISTANCE)) {
            double percentile = value.getPercentileLevelIteratedTo();
            if (percentile >= 100) {
                break;
            }
            double x = 100 / (100 - percentile);
            if (x > points.getLast()[0] && x < count) {
                points.add(new double[] {x, latencyMicros.highestEquivalentValue(value.getValueIteratedTo()) / 1000.0});
            }
        }
        points.add(new double[] {Math.max(count, points.getLast()[0] * 1.0001), latencyMicros.getMaxValue() / 1000.0});
        double[][] xy = new double[2][points.size()];
        for (int i = 0; i < points.size(); i++) {
            xy[0][i] = points.get(i)[0];
            xy[1][i] = points.get(i)[1];
        }
        return xy;
    }

    /** "0%" at x = 1, "90%" at 10, "99%" at 100, "99.9%" at 1000, and so on; null between them. */
    public static String ninesLabel(double x) {
        double nines = Math.log10(x);
        long rounded = Math.round(nines);
        if (Math.abs(nines - rounded) > 1e-6) {
            return null;
        }
        return switch ((int) rounded) {
            case 0 -> "0%";
            case 1 -> "90%";
            case 2 -> "99%";
            default -> "99." + "9".repeat((int) rounded - 2) + "%";
        };
    }
}
