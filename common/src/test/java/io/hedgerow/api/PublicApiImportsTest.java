package io.hedgerow.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The public API ({@code io.hedgerow.api}) depends on nothing but {@code java.*} and itself, and the
 * remote client ({@code io.hedgerow.client}), meant to be shared with callers, on nothing but those,
 * Jackson and the API: read from the sources, imports and fully qualified names alike (comments and
 * string literals aside), since {@code common} has Netty and protobuf on its class path and the
 * compiler would not notice.
 */
@Timeout(30)
class PublicApiImportsTest {
    /** A qualified name of a package outside {@code java}: an import, or a name written out in code. */
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])(?:io|com|org|net|jakarta|javax|sun|jdk)(?:\\.[A-Za-z_]\\w*)+");
    private static final Pattern COMMENTS_AND_STRINGS =
            Pattern.compile("/\\*.*?\\*/|//[^\\n]*|\"\"\"(?:.|\\n)*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])+'",
                    Pattern.DOTALL);

    @Test
    void theApiPackageReferencesOnlyJavaAndItself() throws IOException {
        List<String> outside = references(Path.of("src/main/java/io/hedgerow/api"), List.of("io.hedgerow.api"));

        assertThat(outside).as("names outside java.* and io.hedgerow.api in the public API").isEmpty();
    }

    @Test
    void theRemoteClientReferencesOnlyJavaJacksonTheApiAndItself() throws IOException {
        List<String> outside = references(Path.of("src/main/java/io/hedgerow/client"),
                List.of("io.hedgerow.api", "io.hedgerow.client", "com.fasterxml.jackson"));

        assertThat(outside).as("names outside java.*, Jackson and io.hedgerow.{api,client} in the remote client").isEmpty();
    }

    @Test
    void findsAnImportAndAWrittenOutNameButNotAComment() {
        String source = """
                package io.hedgerow.api;
                import io.hedgerow.root.hedge.HedgeDelay; // an internal import
                import java.util.List;
                /** Not {@link io.hedgerow.leaf.fault.Fault} in a comment. */
                record X(io.netty.buffer.ByteBuf bytes, String text) {
                    static final String NAME = "io.hedgerow.root.Quoted";
                }
                """;

        assertThat(outside("X.java", source, List.of("io.hedgerow.api")))
                .containsExactly("X.java: io.hedgerow.root.hedge.HedgeDelay", "X.java: io.netty.buffer.ByteBuf");
    }

    private static List<String> references(Path dir, List<String> allowed) throws IOException {
        assertThat(dir).as("the package's sources, from the module's directory").isDirectory();
        List<String> outside = new ArrayList<>();
        int files = 0;
        try (Stream<Path> sources = Files.list(dir)) {
            for (Path file : (Iterable<Path>) sources.filter(path -> path.toString().endsWith(".java")).sorted()::iterator) {
                outside.addAll(outside(file.getFileName().toString(), Files.readString(file), allowed));
                files++;
            }
        }
        assertThat(files).as("sources read in " + dir).isPositive();
        return outside;
    }

    /** The qualified names in {@code source}'s code that are under none of the {@code allowed} packages. */
    static List<String> outside(String file, String source, List<String> allowed) {
        String code = COMMENTS_AND_STRINGS.matcher(source).replaceAll(" ");
        List<String> outside = new ArrayList<>();
        Matcher name = QUALIFIED.matcher(code);
        while (name.find()) {
            String found = name.group();
            if (code.startsWith("package ", Math.max(0, name.start() - "package ".length()))) {
                continue;
            }
            if (allowed.stream().noneMatch(prefix -> found.equals(prefix) || found.startsWith(prefix + "."))) {
                outside.add(file + ": " + found);
            }
        }
        return outside;
    }
}
