package io.hedgerow.client;

import io.hedgerow.api.HedgerowClient;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.net.URI;

/** The client contract over HTTP: {@link HttpHedgerowClient} against the same cluster's root on loopback. */
class RemoteClientContractTest extends HedgerowClientContract {
    @Override
    HedgerowClient clientOf(EmbeddedCluster cluster) {
        return HttpHedgerowClient.builder(URI.create("http://127.0.0.1:" + cluster.httpPort())).build();
    }

    @Override
    void closeClient(HedgerowClient client) {
        ((HttpHedgerowClient) client).close();
    }
}
