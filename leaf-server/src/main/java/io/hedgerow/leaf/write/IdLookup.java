package io.hedgerow.leaf.write;

import io.hedgerow.leaf.index.IndexConfig;
import java.io.IOException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/** Finds a live document by its id in a reader, with its version (the seq of its last write). */
final class IdLookup {
    /** A live document: where it is, and its version (0 for one from the build). */
    record Found(LeafReaderContext leaf, int doc, long version) {
    }

    private IdLookup() {
    }

    /** The live document with this id, or null. */
    static Found find(IndexReader reader, String id) throws IOException {
        BytesRef term = new BytesRef(id);
        for (LeafReaderContext leaf : reader.leaves()) {
            Terms terms = leaf.reader().terms(IndexConfig.ID_FIELD);
            if (terms == null) {
                continue;
            }
            TermsEnum termsEnum = terms.iterator();
            if (!termsEnum.seekExact(term)) {
                continue;
            }
            Bits live = leaf.reader().getLiveDocs();
            PostingsEnum postings = termsEnum.postings(null, PostingsEnum.NONE);
            for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
                if (live == null || live.get(doc)) {
                    NumericDocValues seqs = leaf.reader().getNumericDocValues(LivePartition.SEQ_FIELD);
                    long version = seqs != null && seqs.advanceExact(doc) ? seqs.longValue() : 0;
                    return new Found(leaf, doc, version);
                }
            }
        }
        return null;
    }
}
