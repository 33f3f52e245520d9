package io.hedgerow.api;

/** How many documents matched: exactly {@code value}, or at least {@code value}. */
public record TotalHits(long value, Relation relation) {

    public enum Relation {
        /** {@code value} is the exact count. */
        EQUAL_TO("eq"),
        /** {@code value} is a lower bound: counting stopped early, or partitions are missing. */
        GREATER_THAN_OR_EQUAL_TO("gte");

        private final String label;

        Relation(String label) {
            this.label = label;
        }

        /** "eq" or "gte", as in the HTTP API. */
        public String label() {
            return label;
        }
    }

    public boolean exact() {
        return relation == Relation.EQUAL_TO;
    }
}
