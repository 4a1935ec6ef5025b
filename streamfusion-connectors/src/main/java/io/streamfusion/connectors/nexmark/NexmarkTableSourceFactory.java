package io.streamfusion.connectors.nexmark;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;

import java.util.Set;

/** {@code 'connector' = 'nexmark'}: the nexmark event generator as a table source. */
public final class NexmarkTableSourceFactory implements DynamicTableSourceFactory {
    public static final String IDENTIFIER = "nexmark";

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
        return Set.of(
                NexmarkOptions.FIRST_EVENT_RATE,
                NexmarkOptions.NEXT_EVENT_RATE,
                NexmarkOptions.EVENTS_NUM,
                NexmarkOptions.PERSON_PROPORTION,
                NexmarkOptions.AUCTION_PROPORTION,
                NexmarkOptions.BID_PROPORTION,
                NexmarkOptions.PERSON_AVG_SIZE,
                NexmarkOptions.AUCTION_AVG_SIZE,
                NexmarkOptions.BID_AVG_SIZE,
                NexmarkOptions.BID_HOT_RATIO_AUCTIONS,
                NexmarkOptions.BID_HOT_RATIO_BIDDERS,
                NexmarkOptions.AUCTION_HOT_RATIO_SELLERS,
                NexmarkOptions.MAX_EMIT_SPEED,
                NexmarkOptions.KEEP_ALIVE,
                NexmarkOptions.STOP_AT,
                NexmarkOptions.BASE_TIME,
                NexmarkOptions.EVENT_GENERATORS,
                NexmarkOptions.BIDDER_DOUBLE_OFFSET);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        // The physical row itself is NOT NULL; its columns are nullable as in the reference DDL.
        LogicalType actual = context.getPhysicalRowDataType().getLogicalType().copy(true);
        LogicalType expected = NexmarkSchema.PHYSICAL_TYPE.getLogicalType();
        if (!actual.equals(expected)) {
            throw new ValidationException(
                    String.format(
                            "The nexmark connector produces the columns %s, but table %s declares"
                                    + " %s.",
                            expected.asSummaryString(),
                            context.getObjectIdentifier().asSummaryString(),
                            actual.asSummaryString()));
        }
        try {
            return new NexmarkTableSource(GeneratorConfig.fromOptions(helper.getOptions()));
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Invalid nexmark option: " + e.getMessage(), e);
        }
    }
}
