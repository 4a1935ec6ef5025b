package io.streamfusion.runtime.state;

import org.apache.flink.table.types.DataType;

import java.io.Serializable;

/**
 * One state-backed map of a group aggregation, as Flink's generated aggregation declares it in
 * keyed state: a MapState named {@code stateId} from the value (Flink's external representation of
 * {@code keyType}) to a BIGINT ({@code valueType}), and when the value may be NULL a ValueState
 * named {@code stateId + "_null_state"} for the NULL entry. The DISTINCT maps (value to bitmask, or
 * to a count over retracting input) come first, then the MapViews of MIN/MAX over retracting input
 * (value to count). Several DISTINCT calls sharing a map over retracting input count per call in a
 * {@code long[]}: the map has that many lanes, and the native aggregation gives each lane of an
 * entry its own consecutive lookup. The two MapViews of each FIRST_VALUE/LAST_VALUE over retracting
 * input come last ({@link #VALUE_ORDERS}, then {@link #ORDER_VALUES}); the native aggregation reads
 * and writes them through its order-map entries.
 */
public final class DistinctState implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Flink's PerKeyStateDataViewStore.NULL_STATE_POSTFIX. */
    public static final String NULL_STATE_POSTFIX = "_null_state";

    /** A map of BIGINT (or {@code long[]}) values: DISTINCT, MIN/MAX over retraction. */
    public static final int COUNTS = 0;

    /** FIRST/LAST_VALUE's valueToOrderMap: value -> {@code List<Long>} of orders. */
    public static final int VALUE_ORDERS = 1;

    /** FIRST/LAST_VALUE's orderToValueMap: order (Long) -> {@code List} of values. */
    public static final int ORDER_VALUES = 2;

    public final String stateId;
    public final DataType keyType;
    public final DataType valueType;
    public final boolean nullKey;

    /** 1: a BIGINT value; more: a {@code long[]} of that many counts. */
    public final int lanes;

    /** {@link #COUNTS}, {@link #VALUE_ORDERS} or {@link #ORDER_VALUES}. */
    public final int kind;

    public DistinctState(
            String stateId, DataType keyType, DataType valueType, boolean nullKey, int lanes) {
        this(stateId, keyType, valueType, nullKey, lanes, COUNTS);
    }

    private DistinctState(
            String stateId,
            DataType keyType,
            DataType valueType,
            boolean nullKey,
            int lanes,
            int kind) {
        this.stateId = stateId;
        this.keyType = keyType;
        this.valueType = valueType;
        this.nullKey = nullKey;
        this.lanes = lanes;
        this.kind = kind;
    }

    /** One of FIRST/LAST_VALUE's maps over retracting input (its keys are never NULL). */
    public static DistinctState orderMap(
            String stateId, DataType keyType, DataType valueType, int kind) {
        return new DistinctState(stateId, keyType, valueType, false, 1, kind);
    }
}
