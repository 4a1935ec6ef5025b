package io.streamfusion.planner;

import java.util.ArrayList;
import java.util.List;

/**
 * The support decisions of one planning: for every operator between the sources and the sinks,
 * native or the reason it stays on Flink. EXPLAIN prints it; strict mode fails on it.
 */
public final class SupportReport {

    /** One operator's decision. */
    public static final class Decision {
        public final String operator;
        public final boolean isNative;
        public final String reason;

        /** The serialized native plan of a native operator (for tools and profiling). */
        public final byte[] plan;

        /** A native operator's remark (e.g. where its state lives), or null. */
        public final String note;

        Decision(String operator, boolean isNative, String reason, byte[] plan, String note) {
            this.operator = operator;
            this.isNative = isNative;
            this.reason = reason;
            this.plan = plan;
            this.note = note;
        }

        /** The operator and where it runs, for assertion messages. */
        @Override
        public String toString() {
            return operator + (isNative ? ": native" : ": on Flink (" + reason + ")");
        }
    }

    private final List<Decision> decisions = new ArrayList<>();

    /** Native operators that run as one island: each list in data-flow order. */
    private final List<List<String>> islands = new ArrayList<>();

    void addNative(String operator, byte[] plan, String note) {
        decisions.add(new Decision(operator, true, null, plan, note));
    }

    void addFallback(String operator, String reason) {
        decisions.add(new Decision(operator, false, reason, null, null));
    }

    /**
     * Adds {@code note} to the native decision of {@code operator} (after its note, if it has one).
     */
    void addNote(String operator, String note) {
        for (int i = 0; i < decisions.size(); i++) {
            Decision d = decisions.get(i);
            if (d.isNative && d.operator.equals(operator)) {
                String notes = d.note == null ? note : d.note + "\n          " + note;
                decisions.set(i, new Decision(operator, true, null, d.plan, notes));
                return;
            }
        }
        throw new IllegalStateException("No native decision for " + operator);
    }

    /**
     * Turns the native decision of {@code operator} into a fallback for {@code reason} (an operator
     * that runs natively only in an island, and is in none).
     */
    void refuse(String operator, String reason) {
        for (int i = 0; i < decisions.size(); i++) {
            Decision d = decisions.get(i);
            if (d.isNative && d.operator.equals(operator)) {
                decisions.set(i, new Decision(operator, false, reason, null, null));
                return;
            }
        }
        throw new IllegalStateException("No native decision for " + operator);
    }

    /** How rows leave the islands, when the job chose (streamfusion.experimental.*); or null. */
    private String exit;

    void noteExit(String exit) {
        this.exit = exit;
    }

    /** How rows leave the islands (the borrowed exit's verdict), or null when not asked. */
    public String exit() {
        return exit;
    }

    void addIsland(List<String> operators) {
        islands.add(List.copyOf(operators));
    }

    public List<Decision> decisions() {
        return decisions;
    }

    /**
     * The islands of two or more native operators (rows converted once at the island's entry and
     * once at its exit); a native operator in none is an island of its own.
     */
    public List<List<String>> islands() {
        return islands;
    }

    public int nativeCount() {
        int n = 0;
        for (Decision d : decisions) {
            n += d.isNative ? 1 : 0;
        }
        return n;
    }

    public int totalCount() {
        return decisions.size();
    }

    public List<String> fallbackReasons() {
        List<String> reasons = new ArrayList<>();
        for (Decision d : decisions) {
            if (!d.isNative) {
                reasons.add(d.operator + ": " + d.reason);
            }
        }
        return reasons;
    }

    public String summary() {
        return nativeCount() + " of " + totalCount() + " operators native";
    }

    /** The section EXPLAIN appends after Flink's plans. */
    public String toExplainString() {
        StringBuilder s = new StringBuilder("== StreamFusion ==\n");
        for (Decision d : decisions) {
            if (d.isNative) {
                s.append("native    ").append(d.operator).append('\n');
                if (d.note != null) {
                    s.append("          ").append(d.note).append('\n');
                }
            } else {
                s.append("fallback  ")
                        .append(d.operator)
                        .append("\n          reason: ")
                        .append(d.reason)
                        .append('\n');
            }
        }
        for (int i = 0; i < islands.size(); i++) {
            s.append("island ")
                    .append(i + 1)
                    .append(": ")
                    .append(String.join(" -> ", islands.get(i)))
                    .append('\n');
        }
        if (exit != null) {
            s.append("exit:     ").append(exit).append('\n');
        }
        return s.append(summary()).append('\n').toString();
    }
}
