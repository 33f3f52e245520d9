package io.hedgerow.leaf.search;

import com.google.protobuf.ByteString;
import io.hedgerow.common.wire.proto.AfterValue;
import io.hedgerow.common.wire.proto.BoolFilter;
import io.hedgerow.common.wire.proto.Filter;
import io.hedgerow.common.wire.proto.RangeFilter;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SortValue;
import io.hedgerow.common.wire.proto.TermsFilter;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.FieldValues;
import io.hedgerow.leaf.index.IndexConfig;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.SortedSetSelector;
import org.apache.lucene.search.SortedSetSortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * What a search request asks beyond its query text, made Lucene's with the index's config: its
 * filter (a FILTER clause: it narrows the hits without changing their scores), its sort (with the
 * id as the last key, so that partitions, replicas and the root order ties alike), its
 * {@code search_after} as a {@link FieldDoc}, and each hit's sort values for the wire. Pure.
 */
public final class SearchShape {
    private final IndexConfig config;

    public SearchShape(IndexConfig config) {
        this.config = config;
    }

    /** {@code query} with the request's filter as a FILTER clause; the query itself when there is none. */
    public Query filtered(Query query, SearchRequest request) throws BadQueryException {
        if (!request.hasFilter()) {
            return query;
        }
        int[] clauses = {0};
        Query filter = filter(request.getFilter(), clauses);
        return new BooleanQuery.Builder()
                .add(query, BooleanClause.Occur.MUST)
                .add(filter, BooleanClause.Occur.FILTER)
                .build();
    }

    private Query filter(Filter filter, int[] clauses) throws BadQueryException {
        if (++clauses[0] > io.hedgerow.api.Filter.MAX_CLAUSES) {
            throw new BadQueryException("filter: more than " + io.hedgerow.api.Filter.MAX_CLAUSES + " clauses", null);
        }
        return switch (filter.getKindCase()) {
            case TERMS -> terms(filter.getTerms());
            case RANGE -> range(filter.getRange());
            case EXISTS -> {
                requireField(filter.getExists());
                yield new FieldExistsQuery(filter.getExists());
            }
            case BOOL -> bool(filter.getBool(), clauses);
            case KIND_NOT_SET -> throw new BadQueryException("filter: empty (expected: term, terms, range, exists or bool)", null);
        };
    }

    private Query terms(TermsFilter terms) throws BadQueryException {
        String field = terms.getField();
        FieldSpec.Type type = requireField(field);
        if (terms.getValuesCount() == 0) {
            throw new BadQueryException("terms on '" + field + "': no value", null);
        }
        try {
            if (type.numeric()) {
                long[] values = new long[terms.getValuesCount()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = FieldValues.toSortableLong(type, field, terms.getValues(i));
                }
                return values.length == 1 ? LongPoint.newExactQuery(field, values[0]) : LongPoint.newSetQuery(field, values);
            }
        } catch (IllegalArgumentException e) {
            throw new BadQueryException("filter: " + e.getMessage(), e);
        }
        // Keyword (and text, as Elasticsearch's term: the exact token, not analyzed).
        if (terms.getValuesCount() == 1) {
            return new TermQuery(new Term(field, terms.getValues(0)));
        }
        List<BytesRef> values = new ArrayList<>(terms.getValuesCount());
        for (String value : terms.getValuesList()) {
            values.add(new BytesRef(value));
        }
        return new TermInSetQuery(field, values);
    }

    private Query range(RangeFilter range) throws BadQueryException {
        String field = range.getField();
        FieldSpec.Type type = requireField(field);
        if (!type.numeric()) {
            throw new BadQueryException("range on " + type.name().toLowerCase() + " field '" + field + "' (expected: a long,"
                    + " double, date or boolean field; ranges over terms are the query string's, e.g. " + field + ":[a TO b])", null);
        }
        try {
            return Filters.range(field, type,
                    range.hasGte() ? range.getGte() : range.hasGt() ? range.getGt() : null, !range.hasGt(),
                    range.hasLte() ? range.getLte() : range.hasLt() ? range.getLt() : null, !range.hasLt());
        } catch (IllegalArgumentException e) {
            throw new BadQueryException("filter: " + e.getMessage(), e);
        }
    }

    private Query bool(BoolFilter bool, int[] clauses) throws BadQueryException {
        BooleanQuery.Builder builder = new BooleanQuery.Builder();
        for (Filter must : bool.getMustList()) {
            builder.add(filter(must, clauses), BooleanClause.Occur.FILTER);
        }
        for (Filter should : bool.getShouldList()) {
            builder.add(filter(should, clauses), BooleanClause.Occur.SHOULD);
        }
        for (Filter mustNot : bool.getMustNotList()) {
            builder.add(filter(mustNot, clauses), BooleanClause.Occur.MUST_NOT);
        }
        if (bool.getShouldCount() > 0) {
            builder.setMinimumNumberShouldMatch(1);
        } else if (bool.getMustCount() == 0) {
            builder.add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER); // must_not alone: all the others
        }
        return builder.build();
    }

    /** The type of {@code field}, which documents of the index may have. */
    private FieldSpec.Type requireField(String field) throws BadQueryException {
        FieldSpec.Type type = config.typeOf(field);
        if (type == null) {
            throw new BadQueryException("field '" + field + "' is not in the index (expected one of "
                    + config.fields().keySet() + " or id)", null);
        }
        return type;
    }

    /** The request's sort, the id last; null for the classic score order. */
    public Sort sort(SearchRequest request) throws BadQueryException {
        if (request.getSortCount() == 0) {
            return null;
        }
        SortField[] fields = new SortField[request.getSortCount() + 1];
        for (int i = 0; i < request.getSortCount(); i++) {
            io.hedgerow.common.wire.proto.SortField key = request.getSort(i);
            fields[i] = sortField(key.getField(), key.getDescending());
        }
        fields[fields.length - 1] = new SortField(IndexConfig.ID_FIELD, SortField.Type.STRING);
        return new Sort(fields);
    }

    private SortField sortField(String field, boolean descending) throws BadQueryException {
        if (io.hedgerow.api.SortField.SCORE.equals(field)) {
            return new SortField(null, SortField.Type.SCORE, !descending);
        }
        if (IndexConfig.ID_FIELD.equals(field)) {
            return new SortField(field, SortField.Type.STRING, descending);
        }
        FieldSpec.Type type = requireField(field);
        // A multi-valued field sorts by its lowest value ascending and its highest descending, as
        // Elasticsearch's default sort mode: Lucene's default selector is the lowest either way.
        if (type == FieldSpec.Type.KEYWORD) {
            SortedSetSortField sort = new SortedSetSortField(field, descending,
                    descending ? SortedSetSelector.Type.MAX : SortedSetSelector.Type.MIN);
            // Missing last either way, as Elasticsearch does.
            sort.setMissingValue(descending ? SortField.STRING_FIRST : SortField.STRING_LAST);
            return sort;
        }
        if (type.numeric()) {
            SortedNumericSortField sort = new SortedNumericSortField(field, SortField.Type.LONG, descending,
                    descending ? SortedNumericSelector.Type.MAX : SortedNumericSelector.Type.MIN);
            sort.setMissingValue(missingSentinel(descending));
            return sort;
        }
        throw new BadQueryException("sort on text field '" + field + "' (expected: a keyword, long, double, date or boolean"
                + " field, id, or _score)", null);
    }

    /** What a document without a value sorts by: after every value, either way. */
    static long missingSentinel(boolean descending) {
        return descending ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /** The request's search_after as Lucene's; null without one. */
    public FieldDoc after(SearchRequest request, Sort sort) throws BadQueryException {
        if (request.getSearchAfterCount() == 0) {
            return null;
        }
        SortField[] fields = sort.getSort();
        if (request.getSearchAfterCount() != fields.length) {
            throw new BadQueryException("search_after: " + request.getSearchAfterCount() + " values (expected: "
                    + fields.length + ", one per sort key and then the id)", null);
        }
        Object[] values = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            AfterValue after = request.getSearchAfter(i);
            SortField field = fields[i];
            boolean descending = field.getReverse();
            try {
                if (field.getType() == SortField.Type.SCORE) {
                    values[i] = Float.parseFloat(after.getText());
                } else if (field instanceof SortedNumericSortField) {
                    FieldSpec.Type type = config.typeOf(field.getField());
                    // A boolean's sort value is 0 or 1 (as Elasticsearch gives it), which search_after sends back.
                    boolean bit = type == FieldSpec.Type.BOOLEAN && ("0".equals(after.getText()) || "1".equals(after.getText()));
                    values[i] = after.getMissing() ? missingSentinel(descending)
                            : bit ? Long.parseLong(after.getText())
                            : FieldValues.toSortableLong(type, field.getField(), after.getText());
                } else {
                    values[i] = after.getMissing() ? null : new BytesRef(after.getText());
                }
            } catch (IllegalArgumentException e) {
                throw new BadQueryException("search_after[" + i + "]: '" + after.getText() + "' for sort key "
                        + (field.getField() == null ? "_score" : field.getField()) + " (" + e.getMessage() + ")", e);
            }
        }
        // Past every document with these values: the id is unique, so equal values are the same document.
        return new FieldDoc(Integer.MAX_VALUE, Float.NaN, values);
    }

    /** A hit's sort values for the wire, from its {@link FieldDoc} and the {@link #sort} it was found by. */
    public void addSortValues(io.hedgerow.common.wire.proto.Hit.Builder hit, FieldDoc doc, SortField[] fields) {
        for (int i = 0; i < fields.length; i++) {
            Object value = doc.fields[i];
            SortValue.Builder out = SortValue.newBuilder();
            if (fields[i].getType() == SortField.Type.SCORE) {
                out.setScore((Float) value);
            } else if (fields[i] instanceof SortedNumericSortField) {
                long sortable = (Long) value;
                out.setSortable(sortable);
                out.setMissing(sortable == missingSentinel(fields[i].getReverse()));
                out.setIsDouble(config.typeOf(fields[i].getField()) == FieldSpec.Type.DOUBLE);
            } else if (value == null) {
                out.setKeyword(ByteString.EMPTY).setMissing(true);
            } else {
                BytesRef bytes = (BytesRef) value;
                out.setKeyword(ByteString.copyFrom(bytes.bytes, bytes.offset, bytes.length));
            }
            hit.addSortValues(out);
        }
    }
}
