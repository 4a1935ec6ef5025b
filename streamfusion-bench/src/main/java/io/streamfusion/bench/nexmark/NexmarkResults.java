package io.streamfusion.bench.nexmark;

import io.streamfusion.bench.Trials;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one {@code ./sf bench nexmark} run measured, query by query. */
final class NexmarkResults {
    private NexmarkResults() {}

    /** One timed job. */
    static final class Trial {
        final int index;

        /** True when this engine ran first in its pair (trials alternate the order). */
        final boolean ranFirst;

        final double netRuntimeSeconds;
        final double wallSeconds;
        final double cpuSeconds;
        final long peakHeapBytes;
        final long peakNativeBytes;

        /** Rows that entered native operators during this job (process-wide counter delta). */
        final long nativeRecordsIn;

        /** JNI crossings of native operator work during this job (process-wide delta). */
        final long jniCrossings;

        /** Batches of rows that entered native operators from Flink during this job. */
        final long nativeInputBatches;

        /** True when async-profiler sampled this trial (--profile). */
        final boolean profiled;

        /** The job's checkpoints (--checkpoint-interval; none otherwise). */
        final CheckpointStats.Job checkpoints;

        Trial(
                int index,
                boolean ranFirst,
                double netRuntimeSeconds,
                double wallSeconds,
                double cpuSeconds,
                long peakHeapBytes,
                long peakNativeBytes,
                long nativeRecordsIn,
                long jniCrossings,
                long nativeInputBatches,
                boolean profiled,
                CheckpointStats.Job checkpoints) {
            this.index = index;
            this.ranFirst = ranFirst;
            this.netRuntimeSeconds = netRuntimeSeconds;
            this.wallSeconds = wallSeconds;
            this.cpuSeconds = cpuSeconds;
            this.peakHeapBytes = peakHeapBytes;
            this.peakNativeBytes = peakNativeBytes;
            this.nativeRecordsIn = nativeRecordsIn;
            this.jniCrossings = jniCrossings;
            this.nativeInputBatches = nativeInputBatches;
            this.profiled = profiled;
            this.checkpoints = checkpoints;
        }
    }

    /** The trials of one engine on one query. */
    static final class EngineRuns {
        final List<Trial> trials = new ArrayList<>();

        /**
         * The median over the trials of JNI crossings per batch entering native operators, null
         * when no trial had native input.
         */
        Double medianCrossingsPerInputBatch() {
            List<Double> perBatch = new ArrayList<>();
            for (Trial t : trials) {
                if (t.nativeInputBatches > 0) {
                    perBatch.add((double) t.jniCrossings / t.nativeInputBatches);
                }
            }
            return perBatch.isEmpty() ? null : Trials.median(perBatch);
        }

        List<Double> seconds() {
            List<Double> s = new ArrayList<>();
            for (Trial t : trials) {
                s.add(t.netRuntimeSeconds);
            }
            return s;
        }

        List<Double> cpuSeconds() {
            List<Double> s = new ArrayList<>();
            for (Trial t : trials) {
                s.add(t.cpuSeconds);
            }
            return s;
        }

        double medianSeconds() {
            return Trials.median(seconds());
        }

        double minSeconds() {
            return Collections.min(seconds());
        }

        double maxSeconds() {
            return Collections.max(seconds());
        }

        double medianCpuSeconds() {
            return Trials.median(cpuSeconds());
        }

        long peakHeapBytes() {
            long peak = 0;
            for (Trial t : trials) {
                peak = Math.max(peak, t.peakHeapBytes);
            }
            return peak;
        }

        long peakNativeBytes() {
            long peak = 0;
            for (Trial t : trials) {
                peak = Math.max(peak, t.peakNativeBytes);
            }
            return peak;
        }

        boolean isEmpty() {
            return trials.isEmpty();
        }
    }

    /** Everything measured for one query. */
    static final class QueryResult {
        final String query;

        /** Set when the query is not run (q6: Flink's own reason). */
        String skipReason;

        /** Set when a job failed; the query then has no speedup. */
        String error;

        /** Set when the query ran past --query-timeout and was cancelled. */
        boolean timedOut;

        ResultsCheck.Comparison check;

        /** Set with --compare-islands when the plan has islands: stock against islands off. */
        ResultsCheck.Comparison noIslandsCheck;

        /** Set when the check failed: a second stock run against the first. */
        ResultsCheck.Comparison stockSelfCheck;

        int nativeOperators;
        int totalOperators;
        List<String> fallbackReasons = List.of();

        /** The native plan's islands of two or more operators (operator names). */
        List<List<String>> islands = List.of();

        final EngineRuns stock = new EngineRuns();
        final EngineRuns nativeRuns = new EngineRuns();

        /**
         * StreamFusion with streamfusion.islands=false (--compare-islands, queries with islands).
         */
        final EngineRuns noIslands = new EngineRuns();

        /** The CPU profile of each arm's profiled trial (--profile), by arm name. */
        final Map<String, Profiles.Summary> profiles = new LinkedHashMap<>();

        QueryResult(String query) {
            this.query = query;
        }

        boolean skipped() {
            return skipReason != null;
        }

        boolean resultsMatch() {
            return check != null && check.match;
        }

        /**
         * "ok", "FAILED" (results differ), "UNVERIFIED" (they differ, but so do two stock runs: the
         * query's results are not fixed by its input on this check), "TIMEOUT", "error" or
         * "skipped".
         */
        String status() {
            if (skipped()) {
                return "skipped";
            }
            if (timedOut) {
                return "TIMEOUT";
            }
            if (error != null) {
                return "error";
            }
            if (resultsMatch() && (noIslandsCheck == null || noIslandsCheck.match)) {
                return "ok";
            }
            return stockSelfCheck != null && !stockSelfCheck.match ? "UNVERIFIED" : "FAILED";
        }

        /** Stock median over native median; null unless both ran and the results match. */
        Double speedup() {
            if (!status().equals("ok") || stock.isEmpty() || nativeRuns.isEmpty()) {
                return null;
            }
            return stock.medianSeconds() / nativeRuns.medianSeconds();
        }
    }
}
