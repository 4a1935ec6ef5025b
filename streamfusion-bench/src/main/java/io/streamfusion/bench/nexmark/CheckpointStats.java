package io.streamfusion.bench.nexmark;

import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.metrics.reporter.Scheduled;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The checkpoints of a benchmark job (--checkpoint-interval), as the JobManager's checkpoint
 * statistics report them: a metric reporter in each job's MiniCluster (registered as a service,
 * which is how Flink finds reporter factories) reads the job's checkpoint gauges every 100 ms and
 * once more when they are removed at the job's end, and keeps how many checkpoints completed and
 * the largest full size and longest duration among them.
 */
final class CheckpointStats {

    /** A job's checkpoints: how many completed, the largest full size and the longest duration. */
    record Job(long completed, long maxFullBytes, long maxMillis) {}

    /** The reporter's keys in a cluster configuration. */
    static final String REPORTER = "metrics.reporter.sfcheckpoints.factory.class";

    static final String INTERVAL = "metrics.reporter.sfcheckpoints.interval";

    private static final Map<String, Tracked> JOBS = new ConcurrentHashMap<>();

    private CheckpointStats() {}

    /** The statistics of {@code job} (zeros when it took no checkpoint), forgotten after. */
    static Job take(JobID job) {
        Tracked tracked = JOBS.remove(job.toString());
        if (tracked == null) {
            return new Job(0, 0, 0);
        }
        synchronized (tracked) {
            tracked.sample();
            return new Job(tracked.completed, tracked.maxFullBytes, tracked.maxMillis);
        }
    }

    /** One job's gauges (while registered) and what they showed. */
    private static final class Tracked {
        Gauge<?> completedGauge;
        Gauge<?> fullSizeGauge;
        Gauge<?> durationGauge;
        long completed;
        long maxFullBytes;
        long maxMillis;

        synchronized void sample() {
            completed = Math.max(completed, value(completedGauge));
            maxFullBytes = Math.max(maxFullBytes, value(fullSizeGauge));
            maxMillis = Math.max(maxMillis, value(durationGauge));
        }

        private static long value(Gauge<?> gauge) {
            Object v = gauge == null ? null : gauge.getValue();
            return v instanceof Number n ? Math.max(0, n.longValue()) : 0;
        }
    }

    /** Keeps the checkpoint gauges of every job of the cluster it reports for. */
    public static final class Reporter implements MetricReporter, Scheduled {
        @Override
        public void open(MetricConfig config) {}

        @Override
        public void close() {}

        @Override
        public void report() {
            JOBS.values().forEach(Tracked::sample);
        }

        @Override
        public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
            String job = group.getAllVariables().get("<job_id>");
            if (job == null || !(metric instanceof Gauge<?> gauge)) {
                return;
            }
            switch (name) {
                case "numberOfCompletedCheckpoints" -> tracked(job).completedGauge = gauge;
                case "lastCheckpointFullSize" -> tracked(job).fullSizeGauge = gauge;
                case "lastCheckpointDuration" -> tracked(job).durationGauge = gauge;
                default -> {}
            }
        }

        @Override
        public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
            String job = group.getAllVariables().get("<job_id>");
            Tracked tracked = job == null ? null : JOBS.get(job);
            if (tracked != null) {
                tracked.sample();
            }
        }

        private static Tracked tracked(String job) {
            return JOBS.computeIfAbsent(job, j -> new Tracked());
        }
    }

    /** Creates the {@link Reporter} (named by {@link #REPORTER}). */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new Reporter();
        }
    }
}
