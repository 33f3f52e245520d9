package io.hedgerow.root.cost;

import io.hedgerow.common.time.Ticker;

/**
 * What the root learns of queries' costs and how it keeps batch work from crowding out interactive
 * work: the {@link QueryCostBook} and the {@link BatchAdmission}, shared by every search.
 */
public record CostControl(QueryCostBook book, BatchAdmission batch) {

    public static CostControl of(BatchAdmissionSettings settings, int leaves, Ticker ticker) {
        return new CostControl(new QueryCostBook(QueryCostBook.DEFAULT_MAX_ENTRIES),
                new BatchAdmission(settings, leaves, ticker));
    }
}
