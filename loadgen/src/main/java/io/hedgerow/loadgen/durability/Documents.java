package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.durability.DocumentClient.Answer;
import io.hedgerow.loadgen.durability.DocumentClient.Presence;

/**
 * One root's document routes, as the set workload uses them ({@link DocumentClient} over HTTP; a
 * test's fake). Each call blocks for at most its request timeout and never throws for what the root
 * did: every outcome is an {@link Answer} or a {@link Presence}.
 */
public interface Documents {
    Answer add(String id, String body);

    Answer delete(String id);

    Presence read(String id);
}
