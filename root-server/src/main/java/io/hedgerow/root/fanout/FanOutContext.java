package io.hedgerow.root.fanout;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.metrics.RootMetrics;

/** What every gather of one root shares. */
record FanOutContext(ClusterState cluster, DispatchPolicy policy, RootMetrics metrics, Ticker ticker) {
}
