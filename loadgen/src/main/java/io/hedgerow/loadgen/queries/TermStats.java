package io.hedgerow.loadgen.queries;

/** A term of the vocabulary field and the number of documents that hold it. */
public record TermStats(String term, int docFreq) {
}
