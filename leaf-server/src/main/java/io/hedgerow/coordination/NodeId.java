package io.hedgerow.coordination;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A leaf's stable name in the cluster: the name of its membership znode and the entries of every
 * partition's in-sync set. The same alphabet as a leaf's {@code --node-id}, which also names a
 * directory; {@code .} and {@code ..} are refused as ZooKeeper refuses them as path elements.
 */
public record NodeId(String value) implements Comparable<NodeId> {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    public NodeId {
        Objects.requireNonNull(value, "value");
        if (!VALID.matcher(value).matches() || value.equals(".") || value.equals("..")) {
            throw new IllegalArgumentException("node id: '" + value
                    + "' (expected: 1-64 letters, digits, '.', '_' or '-', not '.' or '..')");
        }
    }

    public static NodeId of(String value) {
        return new NodeId(value);
    }

    @Override
    public int compareTo(NodeId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
