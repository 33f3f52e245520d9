/**
 * Merging the partitions' top hits into the global top k ({@link io.hedgerow.root.merge.HitMerger}),
 * and their aggregations into one answer each ({@link io.hedgerow.root.merge.AggregationMerger}).
 * Pure functions over the leaves' answers.
 *
 * <p>Must not depend on Netty, nor on any other package of the root's request path ({@code search},
 * {@code transport}, {@code fanout}).
 */
package io.hedgerow.root.merge;
