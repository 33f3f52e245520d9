package io.hedgerow.leaf.search;

import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.FieldValues;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;

/**
 * Point queries over typed fields (long, double, date, boolean), whose values are indexed as
 * {@link FieldValues sortable longs}: an exact value and a range, both without term expansion.
 */
final class Filters {
    private Filters() {
    }

    static Query exact(String field, FieldSpec.Type type, String text) {
        return LongPoint.newExactQuery(field, FieldValues.toSortableLong(type, field, text));
    }

    /** A range with either end open (null); an empty range matches nothing. */
    static Query range(String field, FieldSpec.Type type, String lower, boolean lowerInclusive, String upper,
            boolean upperInclusive) {
        long low = Long.MIN_VALUE;
        long high = Long.MAX_VALUE;
        if (lower != null) {
            low = FieldValues.toSortableLong(type, field, lower);
            if (!lowerInclusive) {
                if (low == Long.MAX_VALUE) {
                    return new MatchNoDocsQuery("empty range on " + field);
                }
                low++;
            }
        }
        if (upper != null) {
            high = FieldValues.toSortableLong(type, field, upper);
            if (!upperInclusive) {
                if (high == Long.MIN_VALUE) {
                    return new MatchNoDocsQuery("empty range on " + field);
                }
                high--;
            }
        }
        return LongPoint.newRangeQuery(field, low, high);
    }
}
