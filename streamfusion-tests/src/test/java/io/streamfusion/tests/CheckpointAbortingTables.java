package io.streamfusion.tests;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test sink table that logs every row it receives ("+I[1, 2]", over all subtasks and attempts)
 * and, while armed, fails its own snapshot of a checkpoint once one of its writers has written rows
 * and then completed a snapshot: that earlier checkpoint completed (one checkpoint at a time) with
 * the state of those rows, and the aborted one is the next. With operator chaining off the sink is
 * a task of its own, which takes its snapshot after every operator before it has taken theirs: the
 * checkpoint is aborted after the native operators' snapshots were written, and the job fails over
 * to the checkpoint before it.
 */
public final class CheckpointAbortingTables implements DynamicTableSinkFactory {
    static final String IDENTIFIER = "sf-checkpoint-aborting";

    /** The rows written, in the order they came, over all attempts. */
    private static final List<String> LOG = new ArrayList<>();

    static final AtomicBoolean ARMED = new AtomicBoolean();

    /** The checkpoint aborted, or -1. */
    static final AtomicLong ABORTED = new AtomicLong(-1);

    /** The rows fail_once had seen when the checkpoint was aborted. */
    static volatile int seenAtAbort = -1;

    static List<String> rows() {
        synchronized (LOG) {
            return new ArrayList<>(LOG);
        }
    }

    /** Armed, with an empty log. */
    static void arm() {
        synchronized (LOG) {
            LOG.clear();
        }
        ABORTED.set(-1);
        seenAtAbort = -1;
        ARMED.set(true);
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.createTableFactoryHelper(this, context).validate();
        return new TableSink(context.getPhysicalRowDataType());
    }

    private static final class TableSink implements DynamicTableSink {
        private final DataType rowType;

        TableSink(DataType rowType) {
            this.rowType = rowType;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return requestedMode;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(
                    new AbortingSink(context.createDataStructureConverter(rowType)));
        }

        @Override
        public DynamicTableSink copy() {
            return new TableSink(rowType);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    /** Its writer state is empty: it exists only so that the writer takes part in snapshots. */
    private static final class AbortingSink
            implements Sink<RowData>, SupportsWriterState<RowData, Integer> {
        private final DynamicTableSink.DataStructureConverter converter;

        AbortingSink(DynamicTableSink.DataStructureConverter converter) {
            this.converter = converter;
        }

        @Override
        public StatefulSinkWriter<RowData, Integer> createWriter(WriterInitContext context) {
            converter.open(
                    RuntimeConverter.Context.create(
                            Thread.currentThread().getContextClassLoader()));
            return new StatefulSinkWriter<>() {
                private long written;
                private boolean snapshotAfterRows;

                @Override
                public void write(RowData row, Context context) {
                    written++;
                    String entry = String.valueOf(converter.toExternal(row));
                    synchronized (LOG) {
                        LOG.add(entry);
                    }
                }

                @Override
                public List<Integer> snapshotState(long checkpointId) throws IOException {
                    if (snapshotAfterRows && ARMED.compareAndSet(true, false)) {
                        ABORTED.set(checkpointId);
                        seenAtAbort = StateJobs.FailOnce.CALLS.size();
                        throw new IOException("injected abort of checkpoint " + checkpointId);
                    }
                    snapshotAfterRows = written > 0;
                    return List.of();
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }

        @Override
        public StatefulSinkWriter<RowData, Integer> restoreWriter(
                WriterInitContext context, Collection<Integer> recoveredState) {
            return createWriter(context);
        }

        @Override
        public SimpleVersionedSerializer<Integer> getWriterStateSerializer() {
            return new SimpleVersionedSerializer<>() {
                @Override
                public int getVersion() {
                    return 1;
                }

                @Override
                public byte[] serialize(Integer state) {
                    return new byte[0];
                }

                @Override
                public Integer deserialize(int version, byte[] serialized) {
                    return 0;
                }
            };
        }
    }
}
