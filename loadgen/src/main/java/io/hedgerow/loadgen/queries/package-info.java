/**
 * Query sets for the load generator: generated from an index's own vocabulary, saved as files,
 * and sent in weighted mixes.
 *
 * <p><b>Categories.</b> After the task categories of Lucene's nightly benchmarks (luceneutil's
 * {@code CreateQueries}): single terms from three document-frequency bands ({@code high_term},
 * {@code medium_term}, {@code low_term}), two-term AND ({@code +a +b}) and OR ({@code a b})
 * queries, two-word phrases taken from stored text, and two expensive kinds, ORs of 20 to 50
 * medium terms ({@code large_or}) and 4-letter prefixes ({@code prefix}). {@link Vocabulary} defines
 * the bands, {@link QuerySetGenerator} the queries; every query is parsed as the leaves parse it
 * and counted on the whole index before it is kept.
 *
 * <p><b>Files.</b> {@link QuerySetFile}: {@code category TAB query} lines under {@code #} comments
 * that give the index, the seed and the counts but no date, so that the same index and seed give
 * the same bytes. Hand-written files may use categories of their own.
 *
 * <p><b>Mixes.</b> {@link QueryMix}: weights such as {@code high_term=30,phrase=10,large_or=2}.
 * {@link QuerySampler} picks a category by weight (Vose's alias method) and a query in it
 * uniformly, in constant time and without allocating, since it runs once per request on the load
 * generator's event loop.
 */
package io.hedgerow.loadgen.queries;
