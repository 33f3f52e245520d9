package io.hedgerow.leaf.index;

import java.io.IOException;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;
import org.apache.lucene.codecs.compressing.CompressionMode;
import org.apache.lucene.codecs.compressing.Compressor;
import org.apache.lucene.codecs.compressing.Decompressor;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene90.compressing.Lucene90CompressingStoredFieldsFormat;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.DataInput;
import org.apache.lucene.store.DataOutput;
import org.apache.lucene.util.ArrayUtil;
import org.apache.lucene.util.BytesRef;

/**
 * Lucene's default codec, except that stored fields are kept uncompressed in small chunks.
 *
 * <p>Why: the fetch phase reads the stored fields of the k hits of every query. Lucene's default
 * stored fields compress chunks of about 80 KB with LZ4 and a preset dictionary, so reading one
 * document of a kilobyte decompresses the dictionary and a whole sub-block first: on Europarl that
 * made up a third of a leaf's CPU time, and the fetch phase cost more than the search itself.
 * Here reading a document is a seek and a copy of its own bytes. The price is disk: the text is
 * stored as is (Europarl's index grows by about the size of its text).
 *
 * <p>Registered with Lucene's codec SPI under {@value #NAME}, so a partition written with it
 * opens with a plain {@code DirectoryReader.open}; indexes written with Lucene's default codec
 * still open, and keep their compressed stored fields.
 */
public final class HedgerowCodec extends FilterCodec {
    public static final String NAME = "Hedgerow104";

    private final StoredFieldsFormat storedFields = new Lucene90CompressingStoredFieldsFormat(
            "HedgerowStoredFieldsRaw", Uncompressed.MODE, 16 * 1024, 128, 10);

    public HedgerowCodec() {
        super(NAME, new Lucene104Codec());
    }

    @Override
    public StoredFieldsFormat storedFieldsFormat() {
        return storedFields;
    }

    /** A "compression" that copies bytes, so a reader can skip straight to the document it wants. */
    static final class Uncompressed extends CompressionMode {
        static final CompressionMode MODE = new Uncompressed();

        @Override
        public Compressor newCompressor() {
            return new Compressor() {
                @Override
                public void compress(ByteBuffersDataInput buffersInput, DataOutput out) throws IOException {
                    out.copyBytes(buffersInput, buffersInput.length());
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Decompressor newDecompressor() {
            return new Decompressor() {
                @Override
                public void decompress(DataInput in, int originalLength, int offset, int length, BytesRef bytes)
                        throws IOException {
                    bytes.bytes = ArrayUtil.growNoCopy(bytes.bytes, length);
                    in.skipBytes(offset);
                    in.readBytes(bytes.bytes, 0, length);
                    bytes.offset = 0;
                    bytes.length = length;
                }

                @Override
                public Decompressor clone() {
                    return this;
                }
            };
        }

        @Override
        public String toString() {
            return "Uncompressed";
        }
    }
}
