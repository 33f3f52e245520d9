package io.hedgerow.root.transport;

import io.hedgerow.common.wire.proto.DelayDistribution;
import io.hedgerow.common.wire.proto.FaultKind;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.InjectFaultAck;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.root.fault.LeafFaultException;
import io.hedgerow.root.fault.LeafFaults;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * Sends fault injections to leaves over the root's own connections, and completes with their
 * acknowledgements. A caller on one of the root's event loops (the HTTP API) uses that loop's
 * connection, so nothing is handed between threads; any other caller goes through the first loop.
 * The injection is per leaf, not per connection, so any one connection will do.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #injectDelay} and {@link #injectStall} may be called
 * from any thread and never block; the promise completes on an event loop, within
 * {@link #ACK_TIMEOUT} at the latest.
 */
public final class LeafFaultSender implements LeafFaults {
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(5);

    private final LoopConnections[] loops;

    public LeafFaultSender(LoopConnections[] loops) {
        this.loops = loops;
    }

    @Override
    public CompletableFuture<InjectedDelay> injectDelay(int leaf, InjectedDelay delay) {
        InjectFault injection = InjectFault.newBuilder()
                .setKind(FaultKind.DELAY)
                .setDelayNanos(delay.delayNanos())
                .setProbability(delay.probability())
                .setDurationNanos(delay.durationNanos())
                .setSeed(delay.seed())
                .setDistribution(switch (delay.distribution()) {
                    case FIXED -> DelayDistribution.FIXED;
                    case EXPONENTIAL -> DelayDistribution.EXPONENTIAL;
                })
                .build();
        return applied(inject(leaf, injection), ack -> delay.clears() ? InjectedDelay.NONE : delay.withSeed(ack.getSeed()));
    }

    @Override
    public CompletableFuture<InjectedStall> injectStall(int leaf, InjectedStall stall) {
        InjectFault injection = InjectFault.newBuilder()
                .setKind(FaultKind.STALL)
                .setDelayNanos(stall.stallNanos())
                .setPeriodNanos(stall.periodNanos())
                .setDurationNanos(stall.durationNanos())
                .build();
        return applied(inject(leaf, injection), ack -> stall.clears() ? InjectedStall.NONE : stall);
    }

    /**
     * What the leaf applied, from its ack. Not {@code thenApply}: that would wrap a refusal in a
     * {@code CompletionException}, and callers are promised the {@link LeafFaultException} itself.
     */
    private static <T> CompletableFuture<T> applied(CompletableFuture<InjectFaultAck> acked, Function<InjectFaultAck, T> what) {
        CompletableFuture<T> result = new CompletableFuture<>();
        acked.whenComplete((ack, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(what.apply(ack));
            }
        });
        return result;
    }

    private CompletableFuture<InjectFaultAck> inject(int leaf, InjectFault injection) {
        CompletableFuture<InjectFaultAck> promise = new CompletableFuture<>();
        int leaves = loops[0].all().length;
        if (leaf < 0 || leaf >= leaves) {
            promise.completeExceptionally(new LeafFaultException(LeafFaultException.Kind.NO_SUCH_LEAF,
                    "leaf " + leaf + " (expected: 0.." + (leaves - 1) + ")"));
            return promise;
        }
        LoopConnections loop = LoopConnections.current(loops);
        if (loop != null) {
            send(loop, leaf, injection, promise);
            return promise;
        }
        try {
            loops[0].loop().execute(() -> send(loops[0], leaf, injection, promise));
        } catch (RejectedExecutionException e) {
            promise.completeExceptionally(new LeafFaultException(LeafFaultException.Kind.UNAVAILABLE,
                    "the root is shutting down"));
        }
        return promise;
    }

    private static void send(LoopConnections loop, int leaf, InjectFault injection, CompletableFuture<InjectFaultAck> promise) {
        LeafConnection connection = loop.leaf(leaf);
        if (!connection.isReady()) {
            String lastError = connection.status().lastError();
            promise.completeExceptionally(new LeafFaultException(LeafFaultException.Kind.UNAVAILABLE,
                    "leaf " + leaf + " (" + connection.status().address() + ") is not connected"
                            + (lastError == null ? "" : ": " + lastError)));
            return;
        }
        new FaultCall(connection, loop.nextRequestId(), injection, promise).start(ACK_TIMEOUT.toNanos());
    }
}
