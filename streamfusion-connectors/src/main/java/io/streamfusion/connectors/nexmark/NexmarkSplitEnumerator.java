package io.streamfusion.connectors.nexmark;

import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import javax.annotation.Nullable;

/**
 * Assigns the generator splits statically: generator g goes to reader g mod parallelism when that
 * reader registers, which then learns that no more splits will come. Splits given back after a
 * failure wait for their reader to register again.
 */
final class NexmarkSplitEnumerator implements SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> {
    private final SplitEnumeratorContext<NexmarkSplit> context;
    private final List<NexmarkSplit> pending;

    NexmarkSplitEnumerator(
            SplitEnumeratorContext<NexmarkSplit> context, List<NexmarkSplit> pending) {
        this.context = context;
        this.pending = new ArrayList<>(pending);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {}

    @Override
    public void addSplitsBack(List<NexmarkSplit> splits, int subtaskId) {
        pending.addAll(splits);
    }

    @Override
    public void addReader(int subtaskId) {
        int parallelism = context.currentParallelism();
        List<NexmarkSplit> assigned = new ArrayList<>();
        for (Iterator<NexmarkSplit> it = pending.iterator(); it.hasNext(); ) {
            NexmarkSplit split = it.next();
            if (split.generator % parallelism == subtaskId) {
                assigned.add(split);
                it.remove();
            }
        }
        if (!assigned.isEmpty()) {
            // All of a reader's splits in one assignment: handed over one by one, the reader
            // would run ahead on the first before the others arrive, and under periodic
            // watermarks the others' first events would be late, depending on timing.
            context.assignSplits(new SplitsAssignment<>(Map.of(subtaskId, assigned)));
        }
        context.signalNoMoreSplits(subtaskId);
    }

    @Override
    public List<NexmarkSplit> snapshotState(long checkpointId) {
        return new ArrayList<>(pending);
    }

    @Override
    public void close() {}
}
