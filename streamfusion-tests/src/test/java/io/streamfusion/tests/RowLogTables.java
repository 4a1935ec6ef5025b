package io.streamfusion.tests;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test sink table that appends every row it receives, as its RowKind and values ("+I[1, 2]"), to
 * the log named by its {@code name} option, over all its subtasks and over every job that writes to
 * that name: the jobs before and after a savepoint write one log, through the same sink operator
 * (so that both jobs' graphs have the same shape, unlike a collect sink after an INSERT).
 */
public final class RowLogTables implements DynamicTableSinkFactory {
    static final String IDENTIFIER = "sf-row-log";

    private static final ConfigOption<String> NAME =
            ConfigOptions.key("name").stringType().noDefaultValue();

    /**
     * Whether each entry also shows the timestamp of the record that carried the row, as a Sink V2
     * writer sees it ({@link SinkWriter.Context#timestamp()}: null for a record without one and for
     * Long.MIN_VALUE): "+I[1, 2] @ 2000".
     */
    private static final ConfigOption<Boolean> RECORD_TIMESTAMPS =
            ConfigOptions.key("record-timestamps").booleanType().defaultValue(false);

    private static final Map<String, List<String>> LOGS = new ConcurrentHashMap<>();

    /** The rows written to log {@code name} so far, in the order they came. */
    static List<String> rows(String name) {
        List<String> rows = LOGS.get(name);
        if (rows == null) {
            return List.of();
        }
        synchronized (rows) {
            return new ArrayList<>(rows);
        }
    }

    static void clear(String name) {
        LOGS.remove(name);
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(RECORD_TIMESTAMPS);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        return new TableSink(
                helper.getOptions().get(NAME),
                helper.getOptions().get(RECORD_TIMESTAMPS),
                context.getPhysicalRowDataType());
    }

    private static final class TableSink implements DynamicTableSink {
        private final String name;
        private final boolean timestamps;
        private final DataType rowType;

        TableSink(String name, boolean timestamps, DataType rowType) {
            this.name = name;
            this.timestamps = timestamps;
            this.rowType = rowType;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return requestedMode;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(
                    new LogSink(name, timestamps, context.createDataStructureConverter(rowType)));
        }

        @Override
        public DynamicTableSink copy() {
            return new TableSink(name, timestamps, rowType);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    private static final class LogSink implements Sink<RowData> {
        private final String name;
        private final boolean timestamps;
        private final DynamicTableSink.DataStructureConverter converter;

        LogSink(
                String name,
                boolean timestamps,
                DynamicTableSink.DataStructureConverter converter) {
            this.name = name;
            this.timestamps = timestamps;
            this.converter = converter;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            converter.open(
                    RuntimeConverter.Context.create(
                            Thread.currentThread().getContextClassLoader()));
            List<String> log = LOGS.computeIfAbsent(name, n -> new ArrayList<>());
            return new SinkWriter<>() {
                @Override
                public void write(RowData row, Context context) {
                    // Row's text: its RowKind, then its values.
                    String entry =
                            converter.toExternal(row)
                                    + (timestamps ? " @ " + context.timestamp() : "");
                    synchronized (log) {
                        log.add(entry);
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
