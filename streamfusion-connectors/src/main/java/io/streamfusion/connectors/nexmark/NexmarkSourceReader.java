package io.streamfusion.connectors.nexmark;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Emits the events of its generator splits. All generators share one timeline (event number n has
 * the same timestamp on each), so the reader interleaves its splits by always advancing the one
 * with the fewest emitted events; its output is therefore in timestamp order, however many splits
 * it holds, and the watermark never sees a late event from one reader.
 */
final class NexmarkSourceReader implements SourceReader<RowData, NexmarkSplit> {
    /** Events per pollNext call: amortizes the call without starving the mailbox. */
    private static final int EVENTS_PER_POLL = 1024;

    private final GeneratorConfig config;
    private final EventGenerator generator;

    private int numSplits;
    private int[] generators = new int[0];
    private long[] emitted = new long[0];
    private long[] limits = new long[0];
    private boolean noMoreSplits;

    private CompletableFuture<Void> availability = CompletableFuture.completedFuture(null);

    /** Wall-clock time of the first event; only used when max-emit-speed is false. */
    private long wallClockBase = Long.MIN_VALUE;

    private ScheduledExecutorService timer;

    NexmarkSourceReader(GeneratorConfig config) {
        this.config = config;
        this.generator = new EventGenerator(config);
    }

    @Override
    public void start() {}

    @Override
    public InputStatus pollNext(ReaderOutput<RowData> output) {
        for (int i = 0; i < EVENTS_PER_POLL; i++) {
            int split = nextSplit();
            if (split < 0) {
                return exhausted();
            }
            if (!config.maxEmitSpeed && !due(emitted[split] + 1)) {
                return InputStatus.NOTHING_AVAILABLE;
            }
            output.collect(generator.event(generators[split], emitted[split]));
            emitted[split]++;
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /** The split with the fewest emitted events that still has events, or -1. */
    private int nextSplit() {
        int best = -1;
        long bestEmitted = Long.MAX_VALUE;
        for (int s = 0; s < numSplits; s++) {
            long e = emitted[s];
            if (e < limits[s] && e < bestEmitted) {
                best = s;
                bestEmitted = e;
            }
        }
        return best;
    }

    private InputStatus exhausted() {
        if (!noMoreSplits) {
            waitForSignal();
            return InputStatus.NOTHING_AVAILABLE;
        }
        if (config.keepAlive) {
            if (availability.isDone()) {
                availability = new CompletableFuture<>(); // never completes: idle forever
            }
            return InputStatus.NOTHING_AVAILABLE;
        }
        return InputStatus.END_OF_INPUT;
    }

    /** Whether event number n is due on the wall clock; if not, arms a timer for it. */
    private boolean due(long eventNumber) {
        long now = System.currentTimeMillis();
        if (wallClockBase == Long.MIN_VALUE) {
            wallClockBase = now;
        }
        long dueAt = wallClockBase + (config.timestampOf(eventNumber) - config.baseTime);
        if (dueAt <= now) {
            return true;
        }
        if (timer == null) {
            timer =
                    Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "nexmark-emit-timer");
                                t.setDaemon(true);
                                return t;
                            });
        }
        CompletableFuture<Void> wake = new CompletableFuture<>();
        availability = wake;
        timer.schedule(() -> wake.complete(null), dueAt - now, TimeUnit.MILLISECONDS);
        return false;
    }

    private void waitForSignal() {
        if (availability.isDone()) {
            availability = new CompletableFuture<>();
        }
    }

    @Override
    public List<NexmarkSplit> snapshotState(long checkpointId) {
        List<NexmarkSplit> state = new ArrayList<>(numSplits);
        for (int s = 0; s < numSplits; s++) {
            state.add(new NexmarkSplit(generators[s], emitted[s]));
        }
        return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return availability;
    }

    @Override
    public void addSplits(List<NexmarkSplit> splits) {
        int n = numSplits + splits.size();
        generators = Arrays.copyOf(generators, n);
        emitted = Arrays.copyOf(emitted, n);
        limits = Arrays.copyOf(limits, n);
        for (NexmarkSplit split : splits) {
            generators[numSplits] = split.generator;
            emitted[numSplits] = split.emitted;
            limits[numSplits] = config.eventsOf(split.generator);
            numSplits++;
        }
        availability.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        availability.complete(null);
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
