package io.streamfusion.runtime.operators;

import org.apache.flink.table.types.DataType;

import java.io.Serializable;

/**
 * One state-backed map of a group aggregation, as Flink's generated aggregation declares it in
 * keyed state: a MapState named {@code stateId} from the value (Flink's external representation
 * of {@code keyType}) to a BIGINT ({@code valueType}), and when the value may be NULL a
 * ValueState named {@code stateId + "_null_state"} for the NULL entry. The DISTINCT maps (value
 * to bitmask, or to a count over retracting input) come first, then the MapViews of MIN/MAX over
 * retracting input (value to count). Several DISTINCT calls sharing a map over retracting input
 * count per call in a {@code long[]}: the map has that many lanes, and the native aggregation
 * gives each lane of an entry its own consecutive lookup.
 */
public final class DistinctState implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Flink's PerKeyStateDataViewStore.NULL_STATE_POSTFIX. */
    public static final String NULL_STATE_POSTFIX = "_null_state";

    public final String stateId;
    public final DataType keyType;
    public final DataType valueType;
    public final boolean nullKey;
    /** 1: a BIGINT value; more: a {@code long[]} of that many counts. */
    public final int lanes;

    public DistinctState(
            String stateId, DataType keyType, DataType valueType, boolean nullKey, int lanes) {
        this.stateId = stateId;
        this.keyType = keyType;
        this.valueType = valueType;
        this.nullKey = nullKey;
        this.lanes = lanes;
    }
}
