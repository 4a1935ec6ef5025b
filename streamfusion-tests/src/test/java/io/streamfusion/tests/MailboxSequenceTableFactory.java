package io.streamfusion.tests;

import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;

import java.util.Set;

/**
 * A test table {@code (id BIGINT)} of ids 1..number-of-rows from a FLIP-27 source (Flink's {@link
 * DataGeneratorSource}): each source subtask reads one contiguous range of ids, as the datagen
 * connector's sequence does, but its rows are emitted by the task's own mailbox thread. A
 * checkpoint is therefore taken between any two rows, however slowly the rows go on. Flink's
 * datagen table connector is a legacy source instead: its own thread emits rows while it holds the
 * checkpoint lock and takes that lock again at once, so a checkpoint can wait for as long as rows
 * are slowed down (observed: 25 s, a whole hold of {@link StateJobs.FailOnce}).
 */
public final class MailboxSequenceTableFactory implements DynamicTableSourceFactory {
    static final String IDENTIFIER = "sf-mailbox-sequence";

    private static final ConfigOption<Long> NUMBER_OF_ROWS =
            ConfigOptions.key("number-of-rows").longType().noDefaultValue();

    /** Rows per second over all subtasks (as datagen's); 0: as fast as the job reads them. */
    private static final ConfigOption<Long> ROWS_PER_SECOND =
            ConfigOptions.key("rows-per-second").longType().defaultValue(0L);

    /**
     * Whether each id passes through {@link StateJobs.FailOnce} as the source reads it, so that a
     * test can hold the job mid-way (or fail it) without a user-defined function in its Calc, which
     * would keep that Calc out of the native islands.
     */
    private static final ConfigOption<Boolean> FAIL_ONCE =
            ConfigOptions.key("fail-once").booleanType().defaultValue(false);

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(NUMBER_OF_ROWS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(ROWS_PER_SECOND, FAIL_ONCE);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        DataType rowType = context.getPhysicalRowDataType();
        return new Source(
                rowType,
                options.get(NUMBER_OF_ROWS),
                options.get(ROWS_PER_SECOND),
                options.get(FAIL_ONCE));
    }

    private static final class Source implements ScanTableSource {
        private final DataType rowType;
        private final long rows;
        private final long rowsPerSecond;
        private final boolean failOnce;

        Source(DataType rowType, long rows, long rowsPerSecond, boolean failOnce) {
            this.rowType = rowType;
            this.rows = rows;
            this.rowsPerSecond = rowsPerSecond;
            this.failOnce = failOnce;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            if (rowType.getChildren().size() != 1) {
                throw new IllegalArgumentException(IDENTIFIER + " has one column: id BIGINT");
            }
            RateLimiterStrategy rate =
                    rowsPerSecond > 0
                            ? RateLimiterStrategy.perSecond(rowsPerSecond)
                            : RateLimiterStrategy.noOp();
            boolean throughFailOnce = failOnce;
            return SourceProvider.of(
                    new DataGeneratorSource<RowData>(
                            index ->
                                    GenericRowData.of(
                                            throughFailOnce
                                                    ? new StateJobs.FailOnce().eval(index + 1)
                                                    : index + 1),
                            rows,
                            rate,
                            context.createTypeInformation(rowType)));
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(rowType, rows, rowsPerSecond, failOnce);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }
}
