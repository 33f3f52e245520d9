/**
 * The leaf's own HTTP port, apart from the protobuf port roots search it on: {@code /health}
 * (liveness: the process and its event loops work, whatever it serves), {@code /ready} (readiness:
 * assigned partitions, warmed, not draining) and {@code /metrics} (Prometheus text format 0.0.4:
 * the leaf's queues, times, slices, cancels, refreshes and warm-up as {@code hedgerow_leaf_*}, and
 * the JVM's as {@code jvm_*}). It runs on an event loop of its own, so a scrape never holds a
 * search's answer. See docs/operations.md.
 */
package io.hedgerow.leaf.http;
