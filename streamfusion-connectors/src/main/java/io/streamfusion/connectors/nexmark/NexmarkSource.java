package io.streamfusion.connectors.nexmark;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.List;

/**
 * The nexmark event generator as a FLIP-27 source: one split per generator (see {@link
 * GeneratorConfig}), each covering a contiguous range of event ids, assigned statically to the
 * readers. The events depend only on the config, not on the source parallelism.
 */
public final class NexmarkSource implements Source<RowData, NexmarkSplit, List<NexmarkSplit>> {
    private static final long serialVersionUID = 1L;

    private final GeneratorConfig config;

    public NexmarkSource(GeneratorConfig config) {
        this.config = config;
    }

    public GeneratorConfig config() {
        return config;
    }

    @Override
    public Boundedness getBoundedness() {
        return config.bounded ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> createEnumerator(
            SplitEnumeratorContext<NexmarkSplit> context) {
        List<NexmarkSplit> splits = new ArrayList<>(config.numGenerators);
        for (int g = 0; g < config.numGenerators; g++) {
            splits.add(new NexmarkSplit(g, 0));
        }
        return new NexmarkSplitEnumerator(context, splits);
    }

    @Override
    public SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> restoreEnumerator(
            SplitEnumeratorContext<NexmarkSplit> context, List<NexmarkSplit> checkpoint) {
        return new NexmarkSplitEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<NexmarkSplit> getSplitSerializer() {
        return NexmarkSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<List<NexmarkSplit>> getEnumeratorCheckpointSerializer() {
        return NexmarkSplitSerializer.ListSerializer.INSTANCE;
    }

    @Override
    public SourceReader<RowData, NexmarkSplit> createReader(SourceReaderContext readerContext) {
        return new NexmarkSourceReader(config);
    }
}
