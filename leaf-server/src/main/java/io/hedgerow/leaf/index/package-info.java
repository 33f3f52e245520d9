/**
 * Indexing: from documents to an index split into micro-partitions that leaves can serve.
 *
 * <h2>Pipeline</h2>
 *
 * A {@link io.hedgerow.leaf.index.DocumentSource} ({@link io.hedgerow.leaf.index.JsonlSource},
 * {@link io.hedgerow.leaf.index.EuroparlSource}, {@link io.hedgerow.leaf.index.ScaledEuroparlSource}
 * for scale runs, or documents made in code) yields each input line
 * as a {@link io.hedgerow.leaf.index.SourceEntry}: a {@link io.hedgerow.leaf.index.SourceDocument}
 * or a {@link io.hedgerow.leaf.index.BadLine}. Bad lines are data, not exceptions, so the policy
 * ({@link io.hedgerow.leaf.index.BadLinePolicy}) lives in one place, the
 * {@link io.hedgerow.leaf.index.IndexBuilder}, which maps each document with the
 * {@link io.hedgerow.leaf.index.DocumentMapper}, routes it by id with the
 * {@link io.hedgerow.leaf.index.Partitioner}, and hands it to that partition's Lucene writer.
 *
 * <h2>Why micro-partitions, and why by id</h2>
 *
 * Many more partitions than leaves lets the root move load in small steps and replicate a partition
 * without moving a whole shard. Routing by a stable hash of the id (not by arrival order) means a
 * document's partition is a pure function of its id: re-indexing an id replaces it in place, and two
 * builds of the same input lay out the same partitions whatever the number of threads.
 *
 * <h2>Completeness</h2>
 *
 * A {@link io.hedgerow.leaf.index.PartitionStore} is complete exactly when its {@code index.json}
 * exists. The builder deletes the old manifest before anything else and writes the new one after
 * every partition is committed, so readers never take a half-built index for a finished one, and a
 * crashed build is simply rebuilt by the next run. See {@code docs/indexing.md} for the formats.
 */
package io.hedgerow.leaf.index;
