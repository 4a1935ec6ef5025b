package io.streamfusion.tests;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test tables about record timestamps (the StreamRecord's, not a column).
 *
 * <p>As a sink: records, for each row it receives, its RowKind, its first field (a BIGINT) and the
 * timestamp of the record that carried it, as a sink of Flink's Sink V2 API sees it ({@link
 * SinkWriter.Context#timestamp()}: null for a record without one and for Long.MIN_VALUE), into the
 * list named by the {@code name} option. (A legacy SinkFunction behind a table sink sees no record
 * timestamps at all.)
 *
 * <p>As a source: rows (id BIGINT) 1..9 whose records carry the timestamps of the {@code kind}
 * option: {@code flip27}, a FLIP-27 source without a timestamp assigner (Flink stamps every record
 * with Long.MIN_VALUE); {@code flip27-assigned}, the same with an assigner giving id * 1000, or
 * Long.MIN_VALUE when id % 3 == 0; {@code legacy-mixed}, a legacy source that emits ids with id % 3
 * == 0 stamped Long.MIN_VALUE, 1 with no timestamp, 2 stamped id * 1000. ({@code fromDataStream}
 * would not do: its conversion drops record timestamps.)
 */
public final class RecordTimestampTables
        implements DynamicTableSinkFactory, DynamicTableSourceFactory {
    static final String IDENTIFIER = "sf-record-timestamps";

    private static final ConfigOption<String> NAME =
            ConfigOptions.key("name").stringType().noDefaultValue();

    private static final ConfigOption<String> KIND =
            ConfigOptions.key("kind").stringType().noDefaultValue();

    private static final Map<String, List<String>> RECORDS = new ConcurrentHashMap<>();

    /** What the sink named {@code name} received, as "kind value @ timestamp", in order. */
    static List<String> records(String name) {
        List<String> records = RECORDS.get(name);
        if (records == null) {
            return List.of();
        }
        synchronized (records) {
            return new ArrayList<>(records);
        }
    }

    static void clear(String name) {
        RECORDS.remove(name);
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
        return Set.of(NAME, KIND);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        return new TableSource(helper.getOptions().get(KIND));
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        return new TableSink(helper.getOptions().get(NAME));
    }

    private static final class TableSource implements ScanTableSource {
        private final String kind;

        TableSource(String kind) {
            this.kind = kind;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            return new DataStreamScanProvider() {
                @Override
                public DataStream<RowData> produceDataStream(
                        ProviderContext providerContext, StreamExecutionEnvironment env) {
                    return ids(env).map(id -> (RowData) GenericRowData.of(id))
                            .returns(InternalTypeInfo.ofFields(new BigIntType()));
                }

                @Override
                public boolean isBounded() {
                    return true;
                }
            };
        }

        private DataStream<Long> ids(StreamExecutionEnvironment env) {
            switch (kind) {
                case "flip27":
                    return env.fromSequence(1, 9);
                case "flip27-assigned":
                    return env.fromSequence(1, 9)
                            .assignTimestampsAndWatermarks(
                                    WatermarkStrategy.<Long>noWatermarks()
                                            .withTimestampAssigner(
                                                    (id, previous) ->
                                                            id % 3 == 0
                                                                    ? Long.MIN_VALUE
                                                                    : id * 1_000));
                case "legacy-mixed":
                    return env.addSource(new MixedLegacySource(), "mixed", Types.LONG);
                default:
                    throw new IllegalArgumentException("kind " + kind);
            }
        }

        @Override
        public DynamicTableSource copy() {
            return new TableSource(kind);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    /** See the class comment: legacy-mixed. */
    private static final class MixedLegacySource implements SourceFunction<Long> {
        @Override
        public void run(SourceContext<Long> ctx) {
            for (long id = 1; id <= 9; id++) {
                synchronized (ctx.getCheckpointLock()) {
                    if (id % 3 == 0) {
                        ctx.collectWithTimestamp(id, Long.MIN_VALUE);
                    } else if (id % 3 == 1) {
                        ctx.collect(id);
                    } else {
                        ctx.collectWithTimestamp(id, id * 1_000);
                    }
                }
            }
        }

        @Override
        public void cancel() {}
    }

    private static final class TableSink implements DynamicTableSink {
        private final String name;

        TableSink(String name) {
            this.name = name;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return requestedMode;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(new RecordingSink(name));
        }

        @Override
        public DynamicTableSink copy() {
            return new TableSink(name);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    private static final class RecordingSink implements Sink<RowData> {
        private final String name;

        RecordingSink(String name) {
            this.name = name;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            List<String> records = RECORDS.computeIfAbsent(name, n -> new ArrayList<>());
            return new SinkWriter<>() {
                @Override
                public void write(RowData row, Context context) {
                    String record =
                            row.getRowKind().shortString()
                                    + " "
                                    + (row.isNullAt(0) ? "null" : row.getLong(0))
                                    + " @ "
                                    + context.timestamp();
                    synchronized (records) {
                        records.add(record);
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
