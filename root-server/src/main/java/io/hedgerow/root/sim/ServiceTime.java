package io.hedgerow.root.sim;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How long a modelled leaf works on one sub-request when nothing interferes: a distribution to
 * draw from. Written {@code fixed:2ms}, {@code exp:2ms} (the mean), {@code lognormal:2ms,10ms}
 * (the median and the p99) or {@code empirical:FILE} (an HdrHistogram percentile file, the
 * {@code .hgrm} text a real cluster's per-leaf sub-request histogram is exported as, see {@link
 * EmpiricalServiceTime}); {@code empirical:DIR} or {@code empirical:A.hgrm,B.hgrm} give each leaf
 * its own ({@link PerLeafServiceTime}).
 */
public interface ServiceTime {

    /** One draw, in nanoseconds (>= 0). */
    long sampleNanos(SplittableRandom random);

    /** The mean, in nanoseconds: what the load a rate puts on a leaf is worked out from. */
    double meanNanos();

    /** How it was written, for reports. */
    String describe();

    /** What leaf {@code leaf} draws from: this, unless each leaf has its own ({@link PerLeafServiceTime}). */
    default ServiceTime forLeaf(int leaf) {
        return this;
    }

    /** Reads {@code fixed:D}, {@code exp:MEAN}, {@code lognormal:MEDIAN,P99} or {@code empirical:FILE}. */
    static ServiceTime parse(String spec) {
        int colon = spec.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("service time: '" + spec + "' (expected: fixed:2ms, exp:2ms,"
                    + " lognormal:MEDIAN,P99 such as lognormal:2ms,10ms, or empirical:FILE.hgrm, DIR or A.hgrm,B.hgrm)");
        }
        String kind = spec.substring(0, colon).toLowerCase(Locale.ROOT);
        String args = spec.substring(colon + 1);
        return switch (kind) {
            case "fixed" -> fixed(SimDurations.parseNanos(args));
            case "exp", "exponential" -> exponential(SimDurations.parseNanos(args));
            case "lognormal" -> {
                String[] parts = args.split(",");
                if (parts.length != 2) {
                    throw new IllegalArgumentException("lognormal service time: '" + args
                            + "' (expected: MEDIAN,P99 such as 2ms,10ms)");
                }
                yield lognormal(SimDurations.parseNanos(parts[0]), SimDurations.parseNanos(parts[1]));
            }
            case "empirical" -> {
                try {
                    if (args.contains(",")) {
                        yield PerLeafServiceTime.read(java.util.Arrays.stream(args.split(",")).map(String::strip)
                                .map(Path::of).toList(), args);
                    }
                    Path path = Path.of(args);
                    yield java.nio.file.Files.isDirectory(path) ? PerLeafServiceTime.readDirectory(path)
                            : EmpiricalServiceTime.read(path);
                } catch (IOException e) {
                    throw new IllegalArgumentException("empirical service time: cannot read " + args + " (" + e + ")", e);
                }
            }
            default -> throw new IllegalArgumentException("service time kind: '" + kind
                    + "' (expected: fixed, exp, lognormal or empirical)");
        };
    }

    static ServiceTime fixed(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("fixed service time: " + nanos + " ns (expected: >= 0)");
        }
        String text = "fixed:" + SimDurations.format(nanos);
        return new ServiceTime() {
            @Override
            public long sampleNanos(SplittableRandom random) {
                return nanos;
            }

            @Override
            public double meanNanos() {
                return nanos;
            }

            @Override
            public String describe() {
                return text;
            }
        };
    }

    static ServiceTime exponential(long meanNanos) {
        if (meanNanos <= 0) {
            throw new IllegalArgumentException("exponential mean: " + meanNanos + " ns (expected: > 0)");
        }
        String text = "exp:" + SimDurations.format(meanNanos);
        return new ServiceTime() {
            @Override
            public long sampleNanos(SplittableRandom random) {
                return (long) (-meanNanos * Math.log(1 - random.nextDouble()));
            }

            @Override
            public double meanNanos() {
                return meanNanos;
            }

            @Override
            public String describe() {
                return text;
            }
        };
    }

    /**
     * A lognormal with the given median and 99th percentile: {@code sigma = ln(p99 / median) /
     * 2.326}, the p99's standard normal quantile.
     */
    static ServiceTime lognormal(long medianNanos, long p99Nanos) {
        if (medianNanos <= 0 || p99Nanos < medianNanos) {
            throw new IllegalArgumentException("lognormal median " + medianNanos + " ns, p99 " + p99Nanos
                    + " ns (expected: 0 < median <= p99)");
        }
        double mu = Math.log(medianNanos);
        double sigma = Math.log((double) p99Nanos / medianNanos) / 2.3263478740408408;
        double mean = Math.exp(mu + sigma * sigma / 2);
        String text = "lognormal:" + SimDurations.format(medianNanos) + "," + SimDurations.format(p99Nanos);
        return new ServiceTime() {
            @Override
            public long sampleNanos(SplittableRandom random) {
                return (long) Math.exp(mu + sigma * gaussian(random));
            }

            @Override
            public double meanNanos() {
                return mean;
            }

            @Override
            public String describe() {
                return text;
            }
        };
    }

    /** A standard normal draw (Box-Muller, one of the pair). */
    private static double gaussian(SplittableRandom random) {
        double u = 1 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
