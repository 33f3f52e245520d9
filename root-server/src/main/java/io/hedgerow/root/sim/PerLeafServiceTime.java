package io.hedgerow.root.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A service time of its own for each leaf, replayed from measured ones: leaf {@code i} of the
 * simulation draws from distribution {@code i mod n}, so four measured leaves replay at 1,000 as
 * 250 of each. Written {@code empirical:DIR}, DIR holding the {@code leaf-N-search-service.hgrm}
 * files the load generator saves from the root's {@code /metrics/leaves} (a phase's
 * {@code <phase>-leaves/} folder), or {@code empirical:A.hgrm,B.hgrm,...}.
 */
final class PerLeafServiceTime implements ServiceTime {
    private static final Pattern LEAF_FILE = Pattern.compile("leaf-(\\d+)-search-service\\.hgrm");

    private final List<EmpiricalServiceTime> leaves;
    private final String source;

    PerLeafServiceTime(List<EmpiricalServiceTime> leaves, String source) {
        if (leaves.isEmpty()) {
            throw new IllegalArgumentException(source + ": no service-time files (expected: at least one)");
        }
        this.leaves = List.copyOf(leaves);
        this.source = source;
    }

    /** The {@code leaf-N-search-service.hgrm} files of {@code dir}, in leaf order. */
    static PerLeafServiceTime readDirectory(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.filter(file -> LEAF_FILE.matcher(file.getFileName().toString()).matches())
                    .sorted(Comparator.comparingInt(PerLeafServiceTime::leafOf))
                    .toList();
        }
        if (files.isEmpty()) {
            throw new IOException(dir + ": no leaf-N-search-service.hgrm files (expected: a <phase>-leaves/ folder of a"
                    + " load run against a root that serves /metrics/leaves)");
        }
        return read(files, dir.toString());
    }

    static PerLeafServiceTime read(List<Path> files, String source) throws IOException {
        List<EmpiricalServiceTime> leaves = new ArrayList<>();
        for (Path file : files) {
            leaves.add(EmpiricalServiceTime.read(file));
        }
        return new PerLeafServiceTime(leaves, source);
    }

    private static int leafOf(Path file) {
        Matcher matcher = LEAF_FILE.matcher(file.getFileName().toString());
        return matcher.matches() ? Integer.parseInt(matcher.group(1)) : Integer.MAX_VALUE;
    }

    @Override
    public ServiceTime forLeaf(int leaf) {
        return leaves.get(Math.floorMod(leaf, leaves.size()));
    }

    /** A draw from a leaf picked at random: the leaves' mixture. */
    @Override
    public long sampleNanos(SplittableRandom random) {
        return leaves.get(random.nextInt(leaves.size())).sampleNanos(random);
    }

    @Override
    public double meanNanos() {
        return leaves.stream().mapToDouble(ServiceTime::meanNanos).average().orElseThrow();
    }

    @Override
    public String describe() {
        return "empirical:" + source;
    }

    int size() {
        return leaves.size();
    }
}
