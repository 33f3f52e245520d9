package io.hedgerow.leaf.index;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a byte stream into lines at {@code '\n'} (dropping a {@code '\r'} before it) without
 * decoding them, so a line that is not valid UTF-8 spoils only itself, and its number is exact.
 * A line longer than the limit is read past without buffering it and reported as too long.
 * Not thread-safe.
 */
final class ByteLines implements Closeable {
    private final InputStream in;
    private final int maxLineBytes;
    private final byte[] chunk = new byte[64 * 1024];
    private int chunkPos;
    private int chunkEnd;
    private byte[] line = new byte[1024];
    private int length;
    private boolean tooLong;
    private long lineNumber;

    ByteLines(InputStream in, int maxLineBytes) {
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("maxLineBytes: " + maxLineBytes + " (expected: >= 1)");
        }
        this.in = in;
        this.maxLineBytes = maxLineBytes;
    }

    /** Reads the next line; false at the end of the input. */
    boolean next() throws IOException {
        length = 0;
        tooLong = false;
        boolean any = false;
        while (true) {
            if (chunkPos == chunkEnd) {
                chunkEnd = in.read(chunk);
                chunkPos = 0;
                if (chunkEnd <= 0) {
                    chunkEnd = 0;
                    if (!any) {
                        return false;
                    }
                    break;
                }
            }
            any = true;
            int start = chunkPos;
            while (chunkPos < chunkEnd && chunk[chunkPos] != '\n') {
                chunkPos++;
            }
            append(start, chunkPos);
            if (chunkPos < chunkEnd) {
                chunkPos++; // the '\n'
                break;
            }
        }
        lineNumber++;
        if (length > 0 && line[length - 1] == '\r') {
            length--;
        }
        return true;
    }

    private void append(int from, int to) {
        int n = to - from;
        if (tooLong || n == 0) {
            return;
        }
        if ((long) length + n > maxLineBytes) {
            tooLong = true;
            length = 0;
            return;
        }
        if (length + n > line.length) {
            line = Arrays.copyOf(line, Math.min(maxLineBytes, Math.max(length + n, 2 * line.length)));
        }
        System.arraycopy(chunk, from, line, length, n);
        length += n;
    }

    /** The current line's 1-based number. */
    long lineNumber() {
        return lineNumber;
    }

    /** The current line's bytes are {@code bytes()[0 .. length())}; valid until the next call. */
    byte[] bytes() {
        return line;
    }

    int length() {
        return length;
    }

    /** True when the current line exceeded the limit; its bytes were dropped. */
    boolean tooLong() {
        return tooLong;
    }

    /** True when the current line holds nothing but spaces and tabs. */
    boolean blank() {
        if (tooLong) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
