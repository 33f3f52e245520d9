package io.hedgerow.loadgen.durability;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.hedgerow.loadgen.durability.Op.Kind;
import io.hedgerow.loadgen.durability.Op.Type;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a durability run reports besides its verdict: write throughput (acknowledged writes per
 * second of workload), and <i>unavailable seconds</i>: whole seconds of the workload in which no
 * write was acknowledged. Pure over the history.
 *
 * @param seconds            the workload's length
 * @param writesPerSecond    acknowledged writes (adds and deletes) per second
 * @param unavailableSeconds whole seconds with no acknowledged write
 * @param faults             faults the nemesis started
 */
public record DurabilityReport(double seconds, double writesPerSecond, int unavailableSeconds, long faults) {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Measures a history whose workload ran for {@code workloadNanos} from time 0. */
    public static DurabilityReport of(History history, long workloadNanos) {
        int buckets = (int) Math.max(1, workloadNanos / 1_000_000_000L);
        boolean[] acknowledged = new boolean[buckets];
        long ok = 0;
        long faults = 0;
        for (Op op : history.ops()) {
            if (op.isWrite() && op.type() == Type.OK) {
                ok++;
                int second = (int) (op.timeNanos() / 1_000_000_000L);
                if (second >= 0 && second < buckets) {
                    acknowledged[second] = true;
                }
            } else if (op.kind() == Kind.FAULT_START && !op.detail().startsWith("failed:")) {
                faults++;
            }
        }
        int unavailable = 0;
        for (boolean any : acknowledged) {
            unavailable += any ? 0 : 1;
        }
        double seconds = workloadNanos / 1e9;
        return new DurabilityReport(seconds, seconds > 0 ? ok / seconds : 0, unavailable, faults);
    }

    /** The report as {@code durability.json}: settings, these measures, the verdict and its examples. */
    public void writeJson(Path file, Map<String, Object> settings, SetChecker.Verdict verdict) throws IOException {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", settings);
        json.put("final_line", verdict.finalLine());
        json.put("valid", verdict.valid());
        json.put("acknowledged", verdict.acknowledged());
        json.put("acknowledged_adds", verdict.acknowledgedAdds());
        json.put("acknowledged_deletes", verdict.acknowledgedDeletes());
        json.put("lost", verdict.lost().size());
        json.put("resurrected", verdict.resurrected().size());
        json.put("split_terms", verdict.terms().splitTerms().size());
        json.put("term_check_active", verdict.terms().active());
        json.put("term_changes", verdict.terms().changes());
        json.put("unreadable", verdict.unreadable().size());
        json.put("unexpected", verdict.unexpected().size());
        json.put("recovered", verdict.recovered());
        json.put("ops", Map.of("ok", verdict.ok(), "fail", verdict.fail(), "info", verdict.info(),
                "unfinished", verdict.unfinished()));
        json.put("workload_seconds", Math.round(seconds * 10) / 10.0);
        json.put("write_throughput_per_s", Math.round(writesPerSecond * 10) / 10.0);
        json.put("unavailable_seconds", unavailableSeconds);
        json.put("faults", faults);
        json.put("lost_ids", first(verdict.lost()));
        json.put("resurrected_ids", first(verdict.resurrected()));
        json.put("unreadable_ids", first(verdict.unreadable()));
        json.put("unexpected_ids", first(verdict.unexpected()));
        json.put("split_term_examples", first(verdict.terms().splitTerms()));
        JSON.writeValue(file.toFile(), json);
    }

    private static List<String> first(List<String> items) {
        return items.size() <= 100 ? items : items.subList(0, 100);
    }
}
