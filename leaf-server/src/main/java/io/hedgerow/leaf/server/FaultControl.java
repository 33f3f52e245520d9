package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.InjectFaultAck;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.InjectedDelay;

/**
 * The leaf's side of fault injection: obeys {@link InjectFault} frames when the leaf was started
 * with {@code --fault-injection}, refuses them otherwise (fault injection exists for tests and
 * demos and is off unless explicitly enabled), and tells workers how long to hold each sub-request.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #apply} does no I/O and never blocks,
 * so it runs on the event loop that read the frame.
 */
final class FaultControl {
    static final String DISABLED = "fault injection is disabled on this leaf; start it with --fault-injection";
    private static final System.Logger LOG = System.getLogger(FaultControl.class.getName());

    private final boolean enabled;
    private final FaultInjector injector;

    FaultControl(boolean enabled, FaultInjector injector) {
        this.enabled = enabled;
        this.injector = injector;
    }

    FaultInjector injector() {
        return injector;
    }

    /** How long the worker that just took a sub-request holds it first; 0 almost always. */
    long nextDelayNanos() {
        return injector.nextDelayNanos();
    }

    InjectFaultAck apply(InjectFault request) {
        InjectFaultAck.Builder ack = InjectFaultAck.newBuilder().setRequestId(request.getRequestId());
        if (!enabled) {
            return ack.setError(DISABLED).build();
        }
        InjectedDelay asked;
        try {
            asked = new InjectedDelay(request.getDelayNanos(), request.getProbability(), request.getDurationNanos(),
                    request.getSeed());
        } catch (IllegalArgumentException e) {
            return ack.setError(e.getMessage()).build();
        }
        return ack.setSeed(inject(asked).seed()).build();
    }

    /** Puts a delay in effect (or clears it) and logs it: a slow leaf should never be a mystery. */
    InjectedDelay inject(InjectedDelay delay) {
        InjectedDelay applied = injector.inject(delay);
        LOG.log(System.Logger.Level.INFO, applied.clears() ? "injected delay cleared"
                : "injecting a delay into sub-requests: " + applied.describe());
        return applied;
    }
}
