package io.streamfusion.bench.nexmark;

import one.profiler.AsyncProfiler;
import one.profiler.Counter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * CPU profiles of whole trials with async-profiler (the agent is inside its Maven Central jar), in
 * this JVM, which runs the MiniCluster too: every thread of the job is sampled. Each profile is
 * kept as collapsed stacks (one line per distinct stack, root first, then its sample count) and
 * summarized as the share of samples per {@link #CATEGORIES category}.
 */
final class Profiles {
    /**
     * Where a sample's time went, decided by its thread (GC, JIT compiler) and otherwise by the
     * innermost frame that names a part: native code of the engine, the transposes between rows and
     * batches, the rest of StreamFusion's JVM side (shells), the state backend (Flink's heap or
     * RocksDB state, and StreamFusion's state port), the rest of Flink (runtime, operators,
     * generated code), or other (the JDK, libc and the JVM outside GC and JIT).
     */
    static final List<String> CATEGORIES =
            List.of(
                    "native engine",
                    "transposes",
                    "StreamFusion shells",
                    "state backend",
                    "Flink",
                    "GC",
                    "JIT compiler",
                    "other");

    private static final Pattern GC_THREAD =
            Pattern.compile("^\\[(GC Thread|G1 |VM Thread|VM Periodic|GC ).*");
    private static final Pattern JIT_THREAD = Pattern.compile("^\\[(C1|C2) Compiler.*");
    private static final Pattern STATE =
            Pattern.compile(
                    "^(org/apache/flink/runtime/state/|org/apache/flink/state/"
                            + "|org/apache/flink/contrib/streaming/state/|org/rocksdb/"
                            + "|io/streamfusion/runtime/state/|Java_org_rocksdb|rocksdb::).*");
    private static final Pattern NATIVE =
            Pattern.compile("^(streamfusion::|arrow::|Java_io_streamfusion_).*");
    private static final Pattern TRANSPOSE =
            Pattern.compile("^io/streamfusion/runtime/transpose/.*");
    private static final Pattern SHELL = Pattern.compile("^io/streamfusion/(runtime|planner)/.*");

    /** Flink's classes, and the planner's generated ones (no package: "StreamExecCalc$12.x"). */
    private static final Pattern FLINK =
            Pattern.compile("^(org/apache/flink/|[A-Z][A-Za-z0-9_]*\\$[0-9]+\\.).*");

    /** The profiler's sampling interval. */
    static final String INTERVAL = "10ms";

    /** A finished profile: its samples, shares by category and files. */
    static final class Summary {
        final String event;
        final long samples;
        final Map<String, Double> shares;

        /** The collapsed stacks, relative to the configuration's output directory. */
        final String collapsed;

        Summary(String event, long samples, Map<String, Double> shares, String collapsed) {
            this.event = event;
            this.samples = samples;
            this.shares = shares;
            this.collapsed = collapsed;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("event", event);
            m.put("interval", INTERVAL);
            m.put("samples", samples);
            m.put("shares", shares);
            m.put("collapsed", collapsed);
            return m;
        }
    }

    private final Path outDir;
    private AsyncProfiler profiler;
    private String event;

    /** Profiles written under {@code outDir}/profiles. */
    Profiles(Path outDir) {
        this.outDir = outDir;
    }

    /**
     * Starts sampling every thread of the process. Uses perf events ("cpu") where the kernel allows
     * them and the interval timer ("itimer") otherwise.
     */
    void start() throws IOException {
        if (profiler == null) {
            profiler = AsyncProfiler.getInstance();
        }
        if (event == null) {
            try {
                profiler.execute("start,event=cpu,interval=" + INTERVAL + ",threads");
                event = "cpu";
                return;
            } catch (IllegalStateException | IOException e) {
                event = "itimer";
            }
        }
        profiler.execute("start,event=" + event + ",interval=" + INTERVAL + ",threads");
    }

    /** Stops sampling and writes the profile as {@code profiles/<name>.collapsed}. */
    Summary stop(String name) throws IOException {
        profiler.stop();
        String collapsed = profiler.dumpCollapsed(Counter.SAMPLES);
        Path dir = outDir.resolve("profiles");
        Files.createDirectories(dir);
        Path file = dir.resolve(name + ".collapsed");
        Files.writeString(file, collapsed, StandardCharsets.UTF_8);
        long[] perCategory = new long[CATEGORIES.size()];
        long total = 0;
        for (String line : collapsed.split("\n")) {
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                continue;
            }
            long count = Long.parseLong(line.substring(space + 1).trim());
            perCategory[category(line.substring(0, space).split(";"))] += count;
            total += count;
        }
        Map<String, Double> shares = new LinkedHashMap<>();
        for (int i = 0; i < perCategory.length; i++) {
            shares.put(CATEGORIES.get(i), total == 0 ? 0.0 : (double) perCategory[i] / total);
        }
        return new Summary(event, total, shares, "profiles/" + file.getFileName());
    }

    /** The index in {@link #CATEGORIES} of a stack (root first; with the thread frame first). */
    static int category(String[] frames) {
        if (frames.length > 0) {
            if (GC_THREAD.matcher(frames[0]).matches()) {
                return CATEGORIES.indexOf("GC");
            }
            if (JIT_THREAD.matcher(frames[0]).matches()) {
                return CATEGORIES.indexOf("JIT compiler");
            }
        }
        for (int i = frames.length - 1; i >= 0; i--) {
            int c = frameCategory(frames[i]);
            if (c >= 0) {
                return c;
            }
        }
        return CATEGORIES.indexOf("other");
    }

    /** The category a frame names by itself, or -1 (JDK, libc, the JVM, thread frames). */
    static int frameCategory(String frame) {
        if (STATE.matcher(frame).matches()) {
            return CATEGORIES.indexOf("state backend");
        }
        if (NATIVE.matcher(frame).matches()) {
            return CATEGORIES.indexOf("native engine");
        }
        if (TRANSPOSE.matcher(frame).matches()) {
            return CATEGORIES.indexOf("transposes");
        }
        if (SHELL.matcher(frame).matches()) {
            return CATEGORIES.indexOf("StreamFusion shells");
        }
        if (FLINK.matcher(frame).matches()) {
            return CATEGORIES.indexOf("Flink");
        }
        return -1;
    }
}
