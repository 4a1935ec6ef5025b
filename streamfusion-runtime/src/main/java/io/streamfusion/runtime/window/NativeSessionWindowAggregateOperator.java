package io.streamfusion.runtime.window;

import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.state.StateCodec;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.table.runtime.operators.window.TimeWindow;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

/**
 * The operator shell of a native aggregation over a SESSION window: the legacy group window ({@code
 * GROUP BY ..., SESSION(rowtime, gap)}), standing in for Flink's WindowOperator with its
 * MergingWindowProcessFunction, or the window TVF, standing in for WindowAggOperator with
 * UnsliceSyncStateWindowAggProcessor (the same merging, plus the union list state "watermark").
 * State and timers are Flink's own and laid out as Flink lays them out: the keyed {@code
 * ValueState<RowData>} "window-aggs" namespaced by state window ({@link TimeWindow.Serializer}, a
 * {@link RowDataSerializer} of the accumulator types), the {@code MapState<TimeWindow, TimeWindow>}
 * "session-window-mapping" from each in-flight window to its state window, the DISTINCT and MIN/MAX
 * maps per state window, and the timer service "window-timers" (one timer per key and window at its
 * end - 1).
 *
 * <p>The aggregation runs as a native island on the operator contract
 * (native/src/streamfusion/operators/window/session_window_operator.h) and reaches its state and
 * timers through the state port ({@link PortWindowOperator}; state 1 is the mapping). Rows are
 * collected into a batch and handed over when the batch is full, before a watermark, before a
 * checkpoint barrier and at the end of input, so that a batch sees one watermark, as each of
 * Flink's records does: native code groups the rows by key, reads each key's windows, replays its
 * rows against them as Flink's MergingWindowSet does, reads the accumulators (and map entries)
 * involved once, and writes back the net change (accumulators, window mapping, timers). Flink's
 * timer service fires the windows: each fired timer is handed to the port, and the native operator
 * takes them when its time advances, reads their windows' state, and emits their rows in timer
 * order before the watermark that fired them is forwarded.
 *
 * <p>On processing time (Flink's ProcessingTimeSessionWindows / the TVF on a PROCTIME attribute)
 * each row's time is its arrival's, taken when it reaches this operator as Flink's operator takes
 * it per record, and handed over with the batch; no row is late; batches are also flushed on the
 * batch timer and before a window fires, and the windows' timers are processing-time timers.
 */
public class NativeSessionWindowAggregateOperator extends TimeWindowPortOperator {

    private static final long serialVersionUID = 1L;

    /**
     * @param tvf the session window TVF (WindowAggOperator), not the legacy group window
     * @param stateInStore keep the windows and the timers in the native store (event time only)
     */
    public NativeSessionWindowAggregateOperator(ShellSpec spec, boolean tvf, boolean stateInStore) {
        super(spec, tvf, stateInStore);
    }

    @Override
    protected boolean isProcessingTime(Plan plan) {
        return plan.getOperators(0).getSessionWindowAggregate().getProctime();
    }

    /**
     * State 1: MergingWindowProcessFunction's "session-window-mapping" (window to state window),
     * declared through the same call (VoidNamespace).
     */
    @Override
    protected int declareStates() throws Exception {
        MapState<TimeWindow, TimeWindow> mapping =
                getPartitionedState(
                        new MapStateDescriptor<>(
                                "session-window-mapping",
                                new TimeWindow.Serializer(),
                                new TimeWindow.Serializer()));
        port.declareMap(
                1,
                "session-window-mapping",
                mapping,
                StateCodec.timeWindow(),
                StateCodec.timeWindow());
        return 2;
    }
}
