package io.streamfusion.connectors.nexmark;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One generator of the event stream (its id range and timeline come from {@link GeneratorConfig})
 * and how many of its events were already emitted; the latter is the whole checkpointed state of a
 * split.
 */
public final class NexmarkSplit implements SourceSplit {
    final int generator;
    final long emitted;

    public NexmarkSplit(int generator, long emitted) {
        this.generator = generator;
        this.emitted = emitted;
    }

    @Override
    public String splitId() {
        return "generator-" + generator;
    }

    @Override
    public String toString() {
        return "NexmarkSplit{generator=" + generator + ", emitted=" + emitted + '}';
    }
}
