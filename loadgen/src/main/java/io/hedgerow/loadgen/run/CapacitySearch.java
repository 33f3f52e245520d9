package io.hedgerow.loadgen.run;

import io.hedgerow.loadgen.report.Capacity;
import io.hedgerow.loadgen.report.PhaseResult;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.TreeSet;

/**
 * Finds the highest request rate a server sustains within limits. It grows the rate geometrically
 * until a step breaks a limit (or shrinks it from the start until one passes), bisects between the
 * best passing rate and the lowest failing one, and then reruns the best passing rate to confirm
 * it: one good sample is not a capacity. A confirmation that fails counts as a failure at that
 * rate, and the search goes on below it, up to {@code confirmations} times. When every step passes
 * up to the ceiling, the capacity is not reached, and says so.
 *
 * <p>A step passes when nothing was dropped and its error rate and answers' p99 are within the
 * limits. The generator's lateness is not a limit of its own: latency counts from each request's
 * intended start, so a late generator only makes a step look worse. Pure: it only proposes rates
 * and judges results, so the search is tested without a server.
 */
public final class CapacitySearch {
    /** Bisection stops when the bracket is narrower than this fraction of the best passing rate. */
    static final double RESOLUTION = 0.03;
    /** Never propose less than this. */
    static final double MIN_RATE = 1;

    private enum Stage { GROW, SHRINK, REFINE, CONFIRM, DONE }

    private final double growth;
    private final double maxP99Millis;
    private final double maxErrorRate;
    private final double maxRate;
    private final TreeSet<Double> passed = new TreeSet<>();
    private int refineStepsLeft;
    private int confirmationsLeft;
    private int failedConfirmations;
    private int steps;
    private double lowestFail = Double.NaN;
    private Stage stage = Stage.GROW;
    private double next;
    private Capacity result;

    /**
     * @param startRate     first rate tried, requests per second
     * @param growth        factor between rates while growing or shrinking, > 1
     * @param maxP99Millis  a step passes only if its answers' p99 is at most this
     * @param maxErrorRate  a step passes only if its error rate is at most this (0..1)
     * @param refineSteps   bisection steps after the first failure, at most
     * @param maxRate       never try more than this
     * @param confirmations reruns allowed to confirm a rate, at least 1
     */
    public CapacitySearch(double startRate, double growth, double maxP99Millis, double maxErrorRate, int refineSteps,
            double maxRate, int confirmations) {
        if (!(startRate >= MIN_RATE)) {
            throw new IllegalArgumentException("startRate: " + startRate + " (expected: >= " + MIN_RATE + ")");
        }
        if (!(growth > 1)) {
            throw new IllegalArgumentException("growth: " + growth + " (expected: > 1)");
        }
        if (!(maxErrorRate >= 0 && maxErrorRate <= 1)) {
            throw new IllegalArgumentException("maxErrorRate: " + maxErrorRate + " (expected: 0..1)");
        }
        if (confirmations < 1) {
            throw new IllegalArgumentException("confirmations: " + confirmations + " (expected: >= 1)");
        }
        this.growth = growth;
        this.maxP99Millis = maxP99Millis;
        this.maxErrorRate = maxErrorRate;
        this.refineStepsLeft = refineSteps;
        this.maxRate = maxRate;
        this.confirmationsLeft = confirmations;
        this.next = Math.min(startRate, maxRate);
    }

    /** The rate to try next, or empty when the search is over. */
    public OptionalDouble nextRate() {
        return stage == Stage.DONE ? OptionalDouble.empty() : OptionalDouble.of(next);
    }

    /** The next step reruns a rate that passed, to confirm it. */
    public boolean confirming() {
        return stage == Stage.CONFIRM;
    }

    /** The limits, in words. */
    public String limits() {
        return String.format(Locale.ROOT, "p99 <= %s ms, errors <= %s%%, nothing dropped", trim(maxP99Millis),
                trim(maxErrorRate * 100));
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }

    /** Why a step at some rate broke the limits, or null when it stayed within them. */
    public String failure(PhaseResult step) {
        if (step.dropped() > 0) {
            return step.dropped() + " dropped";
        }
        if (step.errorRate() > maxErrorRate) {
            return String.format(Locale.ROOT, "errors %.2f%%", step.errorRate() * 100);
        }
        if (step.latency().getTotalCount() == 0) {
            return "nothing answered";
        }
        if (step.percentileMillis(99) > maxP99Millis) {
            return String.format(Locale.ROOT, "p99 %.2f ms", step.percentileMillis(99));
        }
        return null;
    }

    /** Judges the step run at the proposed rate and proposes the next one; true when it passed. */
    public boolean observe(PhaseResult step) {
        if (stage == Stage.DONE) {
            throw new IllegalStateException("the search is over");
        }
        steps++;
        boolean pass = failure(step) == null;
        double rate = next;
        switch (stage) {
            case GROW -> {
                if (pass) {
                    passed.add(rate);
                    if (rate >= maxRate) {
                        confirm();
                    } else {
                        next = Math.min(maxRate, Math.round(rate * growth));
                    }
                } else {
                    failedAt(rate);
                    if (passed.isEmpty()) {
                        shrinkFrom(rate);
                    } else {
                        refine();
                    }
                }
            }
            case SHRINK -> {
                if (pass) {
                    passed.add(rate);
                    refine();
                } else {
                    failedAt(rate);
                    shrinkFrom(rate);
                }
            }
            case REFINE -> {
                if (pass) {
                    passed.add(rate);
                } else {
                    failedAt(rate);
                }
                refine();
            }
            case CONFIRM -> {
                if (pass) {
                    boolean ceiling = Double.isNaN(lowestFail) && rate >= maxRate;
                    finish(ceiling ? Capacity.Status.NOT_REACHED : Capacity.Status.CONFIRMED, rate);
                } else {
                    failedConfirmations++;
                    failedAt(rate);
                    passed.tailSet(rate, true).clear();
                    if (--confirmationsLeft == 0) {
                        finish(Capacity.Status.NOT_FOUND, 0);
                    } else if (passed.isEmpty()) {
                        shrinkFrom(rate);
                    } else {
                        refineStepsLeft = Math.max(refineStepsLeft, 1);
                        refine();
                    }
                }
            }
            case DONE -> throw new IllegalStateException("unreachable");
        }
        return pass;
    }

    private void failedAt(double rate) {
        lowestFail = Double.isNaN(lowestFail) ? rate : Math.min(lowestFail, rate);
    }

    private void shrinkFrom(double rate) {
        double lower = Math.floor(rate / growth);
        if (lower < MIN_RATE) {
            finish(Capacity.Status.NOT_FOUND, 0);
        } else {
            stage = Stage.SHRINK;
            next = lower;
        }
    }

    /** Bisects while steps are left and the bracket is wide, else confirms the best passing rate. */
    private void refine() {
        double best = passed.last();
        double middle = Math.floor((best + lowestFail) / 2);
        if (refineStepsLeft > 0 && (lowestFail - best) > RESOLUTION * best && middle > best && middle < lowestFail) {
            refineStepsLeft--;
            stage = Stage.REFINE;
            next = middle;
        } else {
            confirm();
        }
    }

    private void confirm() {
        stage = Stage.CONFIRM;
        next = passed.last();
    }

    private void finish(Capacity.Status status, double rate) {
        stage = Stage.DONE;
        String detail = String.format(Locale.ROOT, "%d steps%s%s", steps,
                Double.isNaN(lowestFail) ? "" : String.format(Locale.ROOT, ", lowest failing rate %.0f req/s", lowestFail),
                failedConfirmations == 0 ? "" : ", " + failedConfirmations + " confirmation"
                        + (failedConfirmations == 1 ? "" : "s") + " failed");
        result = new Capacity(rate, status, limits(), detail);
    }

    /** The result, once {@link #nextRate()} is empty. */
    public Capacity result() {
        if (result == null) {
            throw new IllegalStateException("the search is not over");
        }
        return result;
    }
}
