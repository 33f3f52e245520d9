package io.hedgerow.leaf.index;

/** What a build does with a {@link BadLine}. */
public enum BadLinePolicy {
    /** Stop at the first bad line with a {@link BadInputException} naming it; nothing is published. */
    FAIL,
    /** Leave bad lines out, count them, and report the first few in the {@link IndexSummary}. */
    SKIP
}
