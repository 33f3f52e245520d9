package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Durations;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.InjectFaultAck;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;

/**
 * The leaf's side of fault injection: obeys {@link InjectFault} frames when the leaf was started
 * with {@code --fault-injection}, refuses them otherwise (fault injection exists for tests and
 * demos and is off unless explicitly enabled), and tells workers how long to hold each sub-request.
 * A delay and a stall are independent: each injection replaces only the fault of its kind.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #apply} does no I/O and never blocks,
 * so it runs on the event loop that read the frame.
 */
final class FaultControl {
    static final String DISABLED = "fault injection is disabled on this leaf; start it with --fault-injection";
    private static final System.Logger LOG = System.getLogger(FaultControl.class.getName());

    private final boolean enabled;
    private final FaultInjector injector;
    private final Runnable wakeHeldWorkers;

    /**
     * @param wakeHeldWorkers wakes the workers an injected fault holds, so they see a changed or
     *                        cleared fault at once
     */
    FaultControl(boolean enabled, FaultInjector injector, Runnable wakeHeldWorkers) {
        this.enabled = enabled;
        this.injector = injector;
        this.wakeHeldWorkers = wakeHeldWorkers;
    }

    /** Whether faults may be injected (then nothing may run on an event loop that a fault could hold). */
    boolean enabled() {
        return enabled;
    }

    FaultInjector injector() {
        return injector;
    }

    /** How long the worker that just started a sub-request holds it first; 0 almost always. */
    long nextDelayNanos() {
        return injector.nextDelayNanos();
    }

    /** Whether a delay is in effect (not cleared, not lapsed). */
    boolean delayInEffect() {
        return injector.currentDelay().isPresent();
    }

    /** How much longer the stall the leaf is in lasts; 0 almost always. */
    long stallRemainingNanos() {
        return injector.stallRemainingNanos();
    }

    InjectFaultAck apply(InjectFault request) {
        InjectFaultAck.Builder ack = InjectFaultAck.newBuilder().setRequestId(request.getRequestId());
        if (!enabled) {
            return ack.setError(DISABLED).build();
        }
        // Only the leaf's own command line may inject a fault that lasts until it exits.
        if (request.getDurationNanos() > InjectedDelay.MAX_DURATION.toNanos()) {
            return ack.setError("durationNanos: " + request.getDurationNanos() + " (expected: 0.."
                    + InjectedDelay.MAX_DURATION.toNanos() + ", at most " + Durations.format(InjectedDelay.MAX_DURATION)
                    + ")").build();
        }
        try {
            return switch (request.getKind()) {
                case DELAY -> ack.setSeed(inject(new InjectedDelay(request.getDelayNanos(), request.getProbability(),
                        request.getDurationNanos(), request.getSeed(), distribution(request))).seed()).build();
                case STALL -> {
                    inject(new InjectedStall(request.getDelayNanos(), request.getPeriodNanos(), request.getDurationNanos()));
                    yield ack.build();
                }
                case UNRECOGNIZED -> ack.setError("kind: " + request.getKindValue() + " (expected: DELAY or STALL)").build();
            };
        } catch (IllegalArgumentException e) {
            return ack.setError(e.getMessage()).build();
        }
    }

    private static InjectedDelay.Distribution distribution(InjectFault request) {
        return switch (request.getDistribution()) {
            case FIXED -> InjectedDelay.Distribution.FIXED;
            case EXPONENTIAL -> InjectedDelay.Distribution.EXPONENTIAL;
            case UNRECOGNIZED -> throw new IllegalArgumentException("distribution: " + request.getDistributionValue()
                    + " (expected: FIXED or EXPONENTIAL)");
        };
    }

    /**
     * Puts a delay in effect (or clears it, releasing the sub-requests it holds) and logs it: a slow
     * leaf should never be a mystery.
     */
    InjectedDelay inject(InjectedDelay delay) {
        InjectedDelay applied = injector.inject(delay);
        if (applied.clears()) {
            wakeHeldWorkers.run();
        }
        LOG.log(System.Logger.Level.INFO, applied.clears() ? "injected delay cleared"
                : "injecting a delay into sub-requests: " + applied.describe());
        return applied;
    }

    /** Puts a stall in effect (or clears it), wakes the workers a previous one holds, and logs it. */
    InjectedStall inject(InjectedStall stall) {
        InjectedStall applied = injector.inject(stall);
        wakeHeldWorkers.run();
        LOG.log(System.Logger.Level.INFO, applied.clears() ? "injected stall cleared"
                : "injecting a stall of the leaf's workers: " + applied.describe());
        return applied;
    }
}
