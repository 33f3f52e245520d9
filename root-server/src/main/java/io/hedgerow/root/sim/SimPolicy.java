package io.hedgerow.root.sim;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The tail-tolerance techniques a simulated root uses, combinable ({@code hedged+canary}); none of
 * them is {@code none}. Each turns on the request path's own setting: hedged or tied requests
 * ({@code HedgeMode}), the good-enough cutoff ({@code min_coverage} below 1), canaries.
 */
public enum SimPolicy {
    HEDGED, TIED, GOOD_ENOUGH, CANARY;

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Reads {@code none}, or techniques joined by {@code +}: {@code hedged+good-enough+canary}. */
    public static Set<SimPolicy> parse(String text) {
        EnumSet<SimPolicy> policies = EnumSet.noneOf(SimPolicy.class);
        if (text.strip().equalsIgnoreCase("none")) {
            return policies;
        }
        for (String part : text.split("\\+")) {
            String name = part.strip().toUpperCase(Locale.ROOT).replace('-', '_');
            try {
                policies.add(valueOf(name));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("policy: '" + part.strip() + "' (expected: none, or hedged, tied,"
                        + " good-enough and canary joined by +)", e);
            }
        }
        if (policies.contains(HEDGED) && policies.contains(TIED)) {
            throw new IllegalArgumentException("policy: '" + text + "' (expected: hedged or tied, not both)");
        }
        return policies;
    }

    /** {@code none} or the techniques joined by {@code +}. */
    public static String label(Set<SimPolicy> policies) {
        return policies.isEmpty() ? "none" : policies.stream().map(SimPolicy::label).collect(Collectors.joining("+"));
    }
}
