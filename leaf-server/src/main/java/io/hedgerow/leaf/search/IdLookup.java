package io.hedgerow.leaf.search;

import io.hedgerow.leaf.index.IndexConfig;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * A partition's documents by id and ids by document, through the id field: its doc values (for the
 * query phase's hits and the fetch's check) and its terms (for the fetch by id). Pure functions of
 * a reader the caller holds.
 */
final class IdLookup {
    private IdLookup() {
    }

    /** Ids of the given documents (-1: none, null id), from the id field's doc values, visiting segments in doc order. */
    static String[] idsOf(IndexReader reader, int partition, int[] docs) throws IOException {
        String[] ids = new String[docs.length];
        // Doc in the high half, position in the low half: sorting orders by doc without boxing.
        long[] byDoc = new long[docs.length];
        int count = 0;
        for (int i = 0; i < docs.length; i++) {
            if (docs[i] >= 0) {
                byDoc[count++] = ((long) docs[i] << 32) | i;
            }
        }
        byDoc = Arrays.copyOf(byDoc, count);
        Arrays.sort(byDoc);
        List<LeafReaderContext> leaves = reader.leaves();
        LeafReaderContext leaf = null;
        SortedDocValues values = null;
        for (long entry : byDoc) {
            int i = (int) entry;
            int doc = (int) (entry >>> 32);
            if (leaf == null || doc >= leaf.docBase + leaf.reader().maxDoc()) {
                leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
                values = DocValues.getSorted(leaf.reader(), IndexConfig.ID_FIELD);
            }
            if (!values.advanceExact(doc - leaf.docBase)) {
                throw new IOException("document " + doc + " of partition " + partition + " has no id doc value (rebuild the index)");
            }
            ids[i] = values.lookupOrd(values.ordValue()).utf8ToString();
        }
        return ids;
    }

    /**
     * The doc ids of documents named by their id, -1 for an id the reader does not hold (or holds
     * only deleted): a term lookup on the id field, which is indexed as one term, in each segment's
     * terms dictionary until found.
     */
    static int[] docsOf(IndexReader reader, String[] ids) throws IOException {
        int[] docs = new int[ids.length];
        Arrays.fill(docs, -1);
        int found = 0;
        PostingsEnum postings = null;
        for (LeafReaderContext leaf : reader.leaves()) {
            Terms terms = leaf.reader().terms(IndexConfig.ID_FIELD);
            if (terms == null) {
                continue;
            }
            TermsEnum termsEnum = terms.iterator();
            Bits live = leaf.reader().getLiveDocs();
            for (int i = 0; i < ids.length; i++) {
                if (docs[i] >= 0 || ids[i] == null || !termsEnum.seekExact(new BytesRef(ids[i]))) {
                    continue;
                }
                postings = termsEnum.postings(postings, PostingsEnum.NONE);
                for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
                    if (live == null || live.get(doc)) {
                        docs[i] = leaf.docBase + doc;
                        found++;
                        break;
                    }
                }
            }
            if (found == ids.length) {
                break;
            }
        }
        return docs;
    }
}
