package io.streamfusion.tests;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;

import java.util.Set;

/**
 * A test table of rows (id BIGINT) 1..9 whose records (the StreamRecords, not a column) carry the
 * timestamps of the {@code kind} option: {@code flip27}, a FLIP-27 source without a timestamp
 * assigner (Flink stamps every record with Long.MIN_VALUE); {@code flip27-assigned}, the same with
 * an assigner giving id * 1000, or Long.MIN_VALUE when id % 3 == 0; {@code legacy-mixed}, a legacy
 * source that emits ids with id % 3 == 0 stamped Long.MIN_VALUE, 1 with no timestamp, 2 stamped id
 * * 1000. ({@code fromDataStream} would not do: its conversion drops record timestamps.) {@link
 * RowLogTables} with {@code record-timestamps} shows what a sink sees of them.
 */
public final class RecordTimestampTables implements DynamicTableSourceFactory {
    static final String IDENTIFIER = "sf-record-timestamps";

    private static final ConfigOption<String> KIND =
            ConfigOptions.key("kind").stringType().noDefaultValue();

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(KIND);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        return new TableSource(helper.getOptions().get(KIND));
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
}
