package io.hedgerow.client;

import io.hedgerow.api.HedgerowClient;
import io.hedgerow.root.embedded.EmbeddedCluster;

/** The client contract, in process: the root's own {@link HedgerowClient}. */
class EmbeddedClientContractTest extends HedgerowClientContract {
    @Override
    HedgerowClient clientOf(EmbeddedCluster cluster) {
        return cluster.client();
    }
}
