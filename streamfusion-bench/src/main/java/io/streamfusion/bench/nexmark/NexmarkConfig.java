package io.streamfusion.bench.nexmark;

import org.apache.flink.configuration.Configuration;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings of one {@code ./sf bench nexmark} run. Both engines get the same events,
 * parallelism, cluster memory, state backend and table options.
 */
final class NexmarkConfig {
    static final String USAGE =
            "usage: ./sf bench nexmark [--queries q0,q5|all] [--events N] [--parallelism P]"
                    + " [--warmups W] [--warmup-events N] [--trials T] [--state heap,rocksdb]"
                    + " [--minibatch off,on] [--out DIR] [--resume] [--check-events N] [--tps N]"
                    + " [--check-tps N] [--managed-memory SIZE] [--job-timeout SECONDS]"
                    + " [--query-timeout SECONDS] [--compare-islands] [--profile]"
                    + " [--checkpoint-interval DURATION]"
                    + " [--set KEY=VALUE]...";

    List<String> queries = new ArrayList<>(NexmarkQueries.ALL);

    /**
     * Events per timed job. With the other defaults, one configuration of the whole suite (22
     * queries) takes about half an hour on 2 cores on heap; see docs/benchmarks.md "Sizes".
     */
    long events = 2_000_000L;

    /** Event-time rate of the timed jobs (the reference's TPS). */
    long tps = 10_000_000L;

    /** Events of the results check. */
    long checkEvents = 100_000L;

    /**
     * Event-time rate of the results check: 1,000 events/s spreads 100k events over 100 s of event
     * time, so windows fire many times and no two events share a millisecond (ties in ROW_NUMBER
     * over `dateTime` would otherwise be broken by arrival order, which is not fixed).
     */
    long checkTps = 1_000L;

    int parallelism = 2;
    int warmups = 1;

    /** Events per warmup job; 0 means a quarter of a timed job's. */
    long warmupEvents = 0;

    int trials = 3;

    /**
     * A timed job still running after this long is cancelled and its query reported as an error.
     */
    long jobTimeoutSeconds = 3600;

    /**
     * A query (its results check, warmups and trials together) still running after this long is
     * cancelled and reported as TIMEOUT; the suite goes on with the next query.
     */
    long queryTimeoutSeconds = 600;

    /** The state backends of the matrix, in turn; a run has one per configuration. */
    List<String> states = List.of("heap");

    /** The mini-batch settings of the matrix, in turn. */
    List<Boolean> miniBatches = List.of(false);

    /** This configuration's state backend and mini-batch setting (one cell of the matrix). */
    String state = "heap";

    boolean miniBatch = false;

    /** Skip the queries results.jsonl already has for the same revision and options. */
    boolean resume = false;

    /**
     * Also time StreamFusion with {@code streamfusion.islands=false} for queries whose plan has
     * islands, in the same alternating trials.
     */
    boolean compareIslands = false;

    /** Record CPU profiles (async-profiler) of the first trial of each engine. */
    boolean profile = false;

    /** Managed memory of each MiniCluster's TaskManager (RocksDB lives in it). */
    String managedMemory = "512m";

    /**
     * Checkpoints every job takes (both engines), e.g. "2 s", into a directory under --out; each
     * trial then records how many completed, the largest one's full size and the longest one's
     * duration. Null: none.
     */
    String checkpointInterval;

    Path out = Paths.get("nexmark-results");

    /** Table options of every job given with --set (e.g. streamfusion.window.state=FLINK). */
    final Map<String, String> extraOptions = new LinkedHashMap<>();

    /** The options that take no value. */
    private static final List<String> FLAGS = List.of("--resume", "--compare-islands", "--profile");

    static NexmarkConfig parse(String[] args) {
        NexmarkConfig c = new NexmarkConfig();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (FLAGS.contains(arg)) {
                c.resume |= arg.equals("--resume");
                c.compareIslands |= arg.equals("--compare-islands");
                c.profile |= arg.equals("--profile");
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value of " + arg + "\n" + USAGE);
            }
            String value = args[++i];
            switch (arg) {
                case "--queries":
                    c.queries = queries(value);
                    break;
                case "--events":
                    c.events = Long.parseLong(value);
                    break;
                case "--tps":
                    c.tps = Long.parseLong(value);
                    break;
                case "--check-events":
                    c.checkEvents = Long.parseLong(value);
                    break;
                case "--check-tps":
                    c.checkTps = Long.parseLong(value);
                    break;
                case "--parallelism":
                    c.parallelism = Integer.parseInt(value);
                    break;
                case "--warmups":
                    c.warmups = Integer.parseInt(value);
                    break;
                case "--warmup-events":
                    c.warmupEvents = Long.parseLong(value);
                    break;
                case "--job-timeout":
                    c.jobTimeoutSeconds = Long.parseLong(value);
                    break;
                case "--trials":
                    c.trials = Integer.parseInt(value);
                    break;
                case "--query-timeout":
                    c.queryTimeoutSeconds = Long.parseLong(value);
                    break;
                case "--state":
                    c.states = listOf(arg, value, "heap", "rocksdb");
                    break;
                case "--minibatch":
                    {
                        List<Boolean> settings = new ArrayList<>();
                        for (String v : listOf(arg, value, "off", "on")) {
                            settings.add(v.equals("on"));
                        }
                        c.miniBatches = settings;
                        break;
                    }
                case "--checkpoint-interval":
                    c.checkpointInterval = value;
                    break;
                case "--managed-memory":
                    c.managedMemory = value;
                    break;
                case "--out":
                    c.out = Paths.get(value);
                    break;
                case "--set":
                    {
                        int eq = value.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException(
                                    "--set needs KEY=VALUE, not " + value);
                        }
                        c.extraOptions.put(value.substring(0, eq), value.substring(eq + 1));
                        break;
                    }
                default:
                    throw new IllegalArgumentException("unknown argument " + arg + "\n" + USAGE);
            }
        }
        if (c.trials < 1
                || c.warmups < 0
                || c.parallelism < 1
                || c.events < 1
                || c.checkEvents < 1
                || c.warmupEvents < 0
                || c.jobTimeoutSeconds < 1
                || c.queryTimeoutSeconds < 1) {
            throw new IllegalArgumentException(
                    "trials, parallelism and event counts must be positive\n" + USAGE);
        }
        c.state = c.states.get(0);
        c.miniBatch = c.miniBatches.get(0);
        return c;
    }

    /**
     * One configuration per cell of the matrix (state backends × mini-batch settings), in turn.
     * With one cell it writes into {@code --out}; with several, each into its own directory named
     * by {@link #name()} under {@code --out}.
     */
    List<NexmarkConfig> configurations() {
        List<NexmarkConfig> cells = new ArrayList<>();
        boolean several = states.size() * miniBatches.size() > 1;
        for (String s : states) {
            for (Boolean m : miniBatches) {
                NexmarkConfig cell = copy();
                cell.state = s;
                cell.miniBatch = m;
                cell.states = List.of(s);
                cell.miniBatches = List.of(m);
                cell.out = several ? out.resolve(cell.name()) : out;
                cells.add(cell);
            }
        }
        return cells;
    }

    private NexmarkConfig copy() {
        NexmarkConfig c = new NexmarkConfig();
        c.queries = new ArrayList<>(queries);
        c.events = events;
        c.tps = tps;
        c.checkEvents = checkEvents;
        c.checkTps = checkTps;
        c.parallelism = parallelism;
        c.warmups = warmups;
        c.warmupEvents = warmupEvents;
        c.trials = trials;
        c.jobTimeoutSeconds = jobTimeoutSeconds;
        c.queryTimeoutSeconds = queryTimeoutSeconds;
        c.states = states;
        c.miniBatches = miniBatches;
        c.state = state;
        c.miniBatch = miniBatch;
        c.resume = resume;
        c.compareIslands = compareIslands;
        c.profile = profile;
        c.managedMemory = managedMemory;
        c.checkpointInterval = checkpointInterval;
        c.out = out;
        c.extraOptions.putAll(extraOptions);
        return c;
    }

    /** This configuration's name, e.g. "heap-minibatch-off". */
    String name() {
        return state + "-minibatch-" + (miniBatch ? "on" : "off");
    }

    private static List<String> queries(String value) {
        if (value.equals("all")) {
            return new ArrayList<>(NexmarkQueries.ALL);
        }
        List<String> queries = new ArrayList<>();
        for (String q : value.split(",")) {
            String name = q.trim().toLowerCase();
            if (!NexmarkQueries.ALL.contains(name) && !NexmarkQueries.EXTRA.contains(name)) {
                throw new IllegalArgumentException(
                        "unknown query "
                                + q
                                + "; known: "
                                + NexmarkQueries.ALL
                                + " and "
                                + NexmarkQueries.EXTRA);
            }
            queries.add(name);
        }
        return queries;
    }

    /** A comma-separated list of {@code a} and {@code b}, each at most once, in the given order. */
    private static List<String> listOf(String arg, String value, String a, String b) {
        List<String> values = new ArrayList<>();
        for (String v : value.split(",")) {
            String item = v.trim();
            if (!item.equals(a) && !item.equals(b)) {
                throw new IllegalArgumentException(
                        arg + " takes " + a + " and/or " + b + " (comma-separated), not " + value);
            }
            if (!values.contains(item)) {
                values.add(item);
            }
        }
        return values;
    }

    /** The MiniCluster configuration of every job. */
    Configuration cluster() {
        Configuration conf = new Configuration();
        conf.setString("taskmanager.memory.managed.size", managedMemory);
        conf.setString("state.backend.type", state.equals("rocksdb") ? "rocksdb" : "hashmap");
        // Jobs with large heap state (q23's unbounded three-way join keeps every event) pause
        // for full GCs; in one JVM those pauses stall heartbeats too, and the default 50 s
        // timeout then kills a job that would finish.
        conf.setString("heartbeat.timeout", "300 s");
        if (checkpointInterval != null) {
            conf.setString("execution.checkpointing.interval", checkpointInterval);
            conf.setString(
                    "execution.checkpointing.dir",
                    out.toAbsolutePath().resolve("checkpoints").toUri().toString());
            conf.setString(CheckpointStats.REPORTER, CheckpointStats.Factory.class.getName());
            conf.setString(CheckpointStats.INTERVAL, "100 ms");
        }
        return conf;
    }

    /**
     * The MiniCluster configuration of the results check: as {@link #cluster()}, but without
     * periodic watermarks during the run (only the final one at end of input). Which events a
     * periodic watermark makes late depends on timing (e.g. when each generator split reaches its
     * reader), so even stock Flink against itself would not agree on q5 otherwise; with the
     * watermark held back, every event-time result is fixed by the events alone.
     */
    Configuration checkCluster() {
        Configuration conf = cluster();
        conf.setString(CHECK_WATERMARK_INTERVAL_KEY, CHECK_WATERMARK_INTERVAL);
        return conf;
    }

    static final String CHECK_WATERMARK_INTERVAL_KEY = "pipeline.auto-watermark-interval";
    static final String CHECK_WATERMARK_INTERVAL = "1 h";

    /** The table options of every job (both engines). */
    Map<String, String> tableOptions() {
        Map<String, String> options = new LinkedHashMap<>();
        if (miniBatch) {
            options.put("table.exec.mini-batch.enabled", "true");
            options.put("table.exec.mini-batch.allow-latency", "2s");
            options.put("table.exec.mini-batch.size", "5000");
        }
        options.putAll(extraOptions);
        return options;
    }

    long warmupEvents() {
        return warmupEvents == 0 ? Math.max(1, events / 4) : warmupEvents;
    }

    /**
     * The options that shape a query's measurement: {@code --resume} skips a query only when a
     * record of the same revision has exactly these. The query list, output directory and time
     * limits are not among them.
     */
    Map<String, Object> identity() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("configuration", name());
        d.put("events", events);
        d.put("tps", tps);
        d.put("check_events", checkEvents);
        d.put("check_tps", checkTps);
        d.put("parallelism", parallelism);
        d.put("warmups", warmups);
        d.put("warmup_events", warmupEvents());
        d.put("trials", trials);
        d.put("state", state);
        d.put("minibatch", miniBatch);
        d.put("managed_memory", managedMemory);
        if (checkpointInterval != null) {
            d.put("checkpoint_interval", checkpointInterval);
        }
        d.put("table_options", tableOptions());
        d.put("compare_islands", compareIslands);
        d.put("profile", profile);
        return d;
    }

    /** Everything else that shaped the run, kept on every record beside {@link #identity()}. */
    Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("job_timeout_s", jobTimeoutSeconds);
        d.put("query_timeout_s", queryTimeoutSeconds);
        d.put("cluster", cluster().toMap());
        d.put("check_cluster", checkCluster().toMap());
        d.put("native_fallback", "allow");
        d.put(
                "timing",
                "trials_s is the job's net runtime (JobManager: job accepted to job finished) on a"
                    + " fresh MiniCluster; wall_s adds planning and MiniCluster start-up; cpu_s is"
                    + " the process CPU time over wall_s; trials alternate which engine runs"
                    + " first");
        return d;
    }
}
