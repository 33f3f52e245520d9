/**
 * Hedgerow's public Java API: what a caller sends ({@link io.hedgerow.api.SearchRequest}, with its
 * {@link io.hedgerow.api.HedgeMode}, {@link io.hedgerow.api.QueryPriority} and {@link
 * io.hedgerow.api.Aggregation}s), what it gets back ({@link io.hedgerow.api.SearchResult}, its hits,
 * aggregations, coverage, errors and explain traces) and the
 * client interface ({@link io.hedgerow.api.HedgerowClient}) that the root implements.
 *
 * <p>Imports nothing but {@code java.*} and itself: no Netty, no protobuf, no other Hedgerow
 * package, so a caller depends on these types alone and the root's internals can change freely.
 */
package io.hedgerow.api;
