package io.hedgerow.root.sim;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The simulator's request mix ({@code mix}): every search the same ({@code none}), or the
 * structured mix of the load generator's {@code --request-mix structured}, where each search has
 * a {@link Shape} drawn by its share and costs its shape's multiple of the drawn service time on
 * every leaf ({@code mix-cost}) and of the root's CPU per message ({@code mix-root-cost}); or, for
 * a shape given one ({@code mix-service}), draws its service time from a distribution of its own,
 * such as a table measured with that shape alone.
 *
 * <p>The default multiples are a calibration, not a measurement per shape: docs/benchmarks/
 * mixed-workload.md measured the structured mix as a whole at 6.55 ms of CPU per answer against
 * 2.29 ms for plain searches (2.86 times), and 1.18 ms against 0.41 ms at the root (2.88 times).
 * The split between the shapes is a guess that keeps that mean (0.20 x 1 + 0.25 x 2 + 0.20 x 2.5
 * + 0.15 x 1.5 + 0.20 x 7.2 = 2.865): aggregations walk the doc values of every matching document,
 * so faceted searches carry most of it; a page only collects a few more hits.
 *
 * @param shapes        whether searches have shapes ({@code structured}); when not, every search is plain
 * @param leafCost      each shape's multiple of the drawn service time
 * @param rootCost      each shape's multiple of {@code root-cpu} per message of its search
 * @param service       the shapes that draw their service time from a distribution of their own
 *                      (their {@code leafCost} is then not used), the others none
 */
record SimMix(boolean shapes, Map<Shape, Double> leafCost, Map<Shape, Double> rootCost, Map<Shape, ServiceTime> service) {
    /** The calibrated multiples (see the class comment): what {@code mix-cost} and {@code mix-root-cost} default to. */
    static final String DEFAULT_COST = "plain=1,filtered=2,sorted=2.5,paged=1.5,faceted=7.2";

    /**
     * A structured search's shape and its share of searches (percent), as the load generator's
     * {@code StructuredMix.Shape} (loadgen): the two must agree for a simulated run to be set
     * against a measured one.
     */
    enum Shape {
        PLAIN(20), FILTERED(25), SORTED(20), PAGED(15), FACETED(20);

        final int percent;

        Shape(int percent) {
            this.percent = percent;
        }

        /** The name options and reports use: {@code plain}, {@code faceted}... */
        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    SimMix {
        leafCost = Map.copyOf(leafCost);
        rootCost = Map.copyOf(rootCost);
        service = Map.copyOf(service);
        if (!shapes && !service.isEmpty()) {
            throw new IllegalArgumentException("mix-service: " + service.keySet() + " (expected: none without mix"
                    + " structured)");
        }
    }

    /** Reads the {@code mix}, {@code mix-cost} and {@code mix-root-cost} options, no shape with a service of its own. */
    static SimMix parse(String mix, String leafCost, String rootCost) {
        return parse(mix, leafCost, rootCost, "none");
    }

    /** Reads the {@code mix}, {@code mix-cost}, {@code mix-root-cost} and {@code mix-service} options. */
    static SimMix parse(String mix, String leafCost, String rootCost, String service) {
        boolean shapes = switch (mix.strip()) {
            case "none" -> false;
            case "structured" -> true;
            default -> throw new IllegalArgumentException("mix: '" + mix + "' (expected: none or structured)");
        };
        return new SimMix(shapes, costs("mix-cost", leafCost), costs("mix-root-cost", rootCost), services(service));
    }

    /**
     * {@code none}, or {@code SHAPE=SERVICE;SHAPE=SERVICE...}, each SERVICE written as {@code service}'s
     * (a service time may hold commas: {@code lognormal:5ms,20ms}, {@code empirical:A.hgrm,B.hgrm}),
     * each shape at most once; the shapes left out keep their {@code mix-cost} multiple.
     */
    private static Map<Shape, ServiceTime> services(String text) {
        if (text.strip().equals("none")) {
            return Map.of();
        }
        Map<Shape, ServiceTime> services = new EnumMap<>(Shape.class);
        for (String part : text.split(";")) {
            int equals = part.indexOf('=');
            Shape shape = equals > 0 ? shapeNamed(part.substring(0, equals).strip()) : null;
            if (shape == null || services.containsKey(shape)) {
                throw new IllegalArgumentException("mix-service: '" + part.strip() + "' in '" + text + "' (expected: none,"
                        + " or SHAPE=SERVICE joined by ';', each of plain, filtered, sorted, paged and faceted at most"
                        + " once, such as 'faceted=empirical:faceted.hgrm;sorted=lognormal:5ms,15ms')");
            }
            try {
                services.put(shape, ServiceTime.parse(part.substring(equals + 1).strip()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("mix-service: " + shape.label() + ": " + e.getMessage(), e);
            }
        }
        return services;
    }

    private static Shape shapeNamed(String name) {
        for (Shape candidate : Shape.values()) {
            if (candidate.label().equals(name)) {
                return candidate;
            }
        }
        return null;
    }

    /** {@code plain=1,faceted=7.2,...}: every shape once, each multiple > 0. */
    private static Map<Shape, Double> costs(String option, String text) {
        Map<Shape, Double> costs = new EnumMap<>(Shape.class);
        for (String part : text.split(",")) {
            int equals = part.indexOf('=');
            Shape shape = null;
            double cost = Double.NaN;
            if (equals > 0) {
                shape = shapeNamed(part.substring(0, equals).strip());
                try {
                    cost = Double.parseDouble(part.substring(equals + 1).strip());
                } catch (NumberFormatException e) {
                    // told below
                }
            }
            if (shape == null || !(cost > 0) || Double.isInfinite(cost) || costs.containsKey(shape)) {
                throw new IllegalArgumentException(option + ": '" + part.strip() + "' in '" + text + "' (expected: each of"
                        + " plain, filtered, sorted, paged and faceted once, as SHAPE=MULTIPLE with MULTIPLE > 0, such as "
                        + DEFAULT_COST + ")");
            }
            costs.put(shape, cost);
        }
        if (costs.size() != Shape.values().length) {
            throw new IllegalArgumentException(option + ": '" + text + "' (expected: every shape, such as " + DEFAULT_COST
                    + ")");
        }
        return costs;
    }

    /** A shape by its share: one uniform draw from {@code random}. */
    static Shape pick(SplittableRandom random) {
        int draw = random.nextInt(100);
        for (Shape shape : Shape.values()) {
            draw -= shape.percent;
            if (draw < 0) {
                return shape;
            }
        }
        throw new AssertionError("shares sum to 100");
    }

    /**
     * The mean multiple of the service time over the shares: 1 without shapes. A shape with a service
     * time of its own counts its mean over {@code baseMeanNanos}, the mean of the {@code service} the
     * other shapes scale.
     */
    double meanLeafCost(double baseMeanNanos) {
        if (!shapes) {
            return 1;
        }
        double sum = 0;
        for (Shape shape : Shape.values()) {
            ServiceTime own = service.get(shape);
            double multiple = own == null ? leafCost.get(shape) : own.meanNanos() / baseMeanNanos;
            sum += shape.percent / 100.0 * multiple;
        }
        return sum;
    }

    /** The shape's multiple of the leaf's drawn service time: 1 for a shape that draws from its own. */
    double leafCost(Shape shape) {
        return shape == null || service.containsKey(shape) ? 1 : leafCost.get(shape);
    }

    /** The shape's own service time, or null when it scales the leaf's ({@code mix-cost}). */
    ServiceTime service(Shape shape) {
        return shape == null ? null : service.get(shape);
    }

    double rootCost(Shape shape) {
        return shape == null ? 1 : rootCost.get(shape);
    }
}
