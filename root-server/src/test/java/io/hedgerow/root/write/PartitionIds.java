package io.hedgerow.root.write;

/** Document ids chosen by the partition they fall in, for tests that must write every partition. */
public final class PartitionIds {
    private PartitionIds() {
    }

    /** The first id {@code prefix + n} (n = 0, 1, ...) that {@code documents} places in {@code partition}. */
    public static String idIn(DocumentWriter documents, int partition, String prefix) {
        for (int i = 0; ; i++) {
            if (documents.partitionOf(prefix + i) == partition) {
                return prefix + i;
            }
        }
    }
}
