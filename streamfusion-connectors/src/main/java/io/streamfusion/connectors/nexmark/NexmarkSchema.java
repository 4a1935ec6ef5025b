package io.streamfusion.connectors.nexmark;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;

/**
 * The physical row of the nexmark table (research/nexmark.md §2.1): event_type and three nullable
 * ROW columns, exactly one of which is set. The computed dateTime column and the watermark are
 * declared by the DDL, not produced by the source.
 */
public final class NexmarkSchema {
    public static final int EVENT_TYPE = 0;
    public static final int PERSON = 1;
    public static final int AUCTION = 2;
    public static final int BID = 3;

    public static final DataType PERSON_TYPE =
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT()),
                    DataTypes.FIELD("name", DataTypes.STRING()),
                    DataTypes.FIELD("emailAddress", DataTypes.STRING()),
                    DataTypes.FIELD("creditCard", DataTypes.STRING()),
                    DataTypes.FIELD("city", DataTypes.STRING()),
                    DataTypes.FIELD("state", DataTypes.STRING()),
                    DataTypes.FIELD("dateTime", DataTypes.TIMESTAMP(3)),
                    DataTypes.FIELD("extra", DataTypes.STRING()));

    public static final DataType AUCTION_TYPE =
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT()),
                    DataTypes.FIELD("itemName", DataTypes.STRING()),
                    DataTypes.FIELD("description", DataTypes.STRING()),
                    DataTypes.FIELD("initialBid", DataTypes.BIGINT()),
                    DataTypes.FIELD("reserve", DataTypes.BIGINT()),
                    DataTypes.FIELD("dateTime", DataTypes.TIMESTAMP(3)),
                    DataTypes.FIELD("expires", DataTypes.TIMESTAMP(3)),
                    DataTypes.FIELD("seller", DataTypes.BIGINT()),
                    DataTypes.FIELD("category", DataTypes.BIGINT()),
                    DataTypes.FIELD("extra", DataTypes.STRING()));

    public static final DataType BID_TYPE =
            DataTypes.ROW(
                    DataTypes.FIELD("auction", DataTypes.BIGINT()),
                    DataTypes.FIELD("bidder", DataTypes.BIGINT()),
                    DataTypes.FIELD("price", DataTypes.BIGINT()),
                    DataTypes.FIELD("channel", DataTypes.STRING()),
                    DataTypes.FIELD("url", DataTypes.STRING()),
                    DataTypes.FIELD("dateTime", DataTypes.TIMESTAMP(3)),
                    DataTypes.FIELD("extra", DataTypes.STRING()));

    public static final DataType PHYSICAL_TYPE =
            DataTypes.ROW(
                    DataTypes.FIELD("event_type", DataTypes.INT()),
                    DataTypes.FIELD("person", PERSON_TYPE),
                    DataTypes.FIELD("auction", AUCTION_TYPE),
                    DataTypes.FIELD("bid", BID_TYPE));

    private NexmarkSchema() {}
}
