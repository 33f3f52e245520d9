/**
 * A remote Java client of a Hedgerow root over its HTTP API: {@link io.hedgerow.client.HttpHedgerowClient}
 * implements {@link io.hedgerow.api.HedgerowClient}, the interface the embedded cluster's client
 * implements, so code written against one runs against the other. It also writes documents
 * ({@code /documents}), which the interface does not cover.
 *
 * <p>One job per class: {@link io.hedgerow.client.SearchRequestEncoder} turns a request into the
 * JSON body of {@code POST /search}, {@link io.hedgerow.client.SearchResultDecoder} turns the answer
 * back into a {@link io.hedgerow.api.SearchResult}, {@link io.hedgerow.client.ErrorMapping} turns
 * the root's {@code {"error", "detail"}} bodies into exceptions, {@link io.hedgerow.client.RetryPolicy}
 * decides whether a {@code 503} with {@code Retry-After} is tried again and when, and
 * {@link io.hedgerow.client.DocumentCodec} reads and writes the document routes' JSON.
 *
 * <p>Imports only {@code java.*}, Jackson and {@code io.hedgerow.api}: nothing of the root's insides.
 */
package io.hedgerow.client;
