package io.streamfusion.runtime.window;

import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.island.ShellSpec;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.window.TimeWindow;

import java.time.ZoneOffset;

/**
 * The operator shell of a native legacy group window aggregation over a TUMBLE or HOP window, on
 * event or processing time ({@code GROUP BY ..., TUMBLE(rowtime, size)} or {@code HOP(rowtime,
 * slide, size)}), standing in for Flink's WindowOperator with its GeneralWindowProcessFunction
 * (TUMBLE) or PanedWindowProcessFunction (HOP, panes of gcd(size, slide)). State and timers are
 * Flink's own and laid out as Flink lays them out: the keyed {@code ValueState<RowData>}
 * "window-aggs" namespaced by window (TUMBLE) or pane (HOP) ({@link TimeWindow.Serializer}), and
 * the timer service "window-timers" with one timer per key and window at its end - 1.
 *
 * <p>The aggregation runs as a native island on the operator contract
 * (native/src/streamfusion/operators/window/group_window_operator.h) and reaches its state and
 * timers through the state port ({@link PortWindowOperator}). Rows are collected into a batch and
 * handed over when the batch is full, before a watermark, before a checkpoint barrier and at the
 * end of input, so that a batch sees one watermark (processing time: one pane): native code assigns
 * panes, drops late rows (a pane whose last window has fired) and accumulates each (key, pane) in
 * arrival order, reading and writing each group's accumulator once and registering the timers of
 * the windows the pane belongs to that have not fired. Flink's timers fire the windows; natively,
 * each fired window's panes are read (earliest first, the order Flink merges them in), its expiring
 * panes cleared, and the windows' rows emitted before the watermark that fired them is forwarded.
 */
public class NativeGroupWindowAggregateOperator extends TimeWindowPortOperator {

    private static final long serialVersionUID = 1L;

    private final long paneSize;

    /**
     * @param eventTime false for a processing-time window
     * @param slide the HOP slide; the size for TUMBLE (panes are gcd(size, slide))
     * @param hop a HOP window (panes merged at each fire), not a TUMBLE one
     * @param stateInStore keep the panes and the timers in the native store (event time only)
     */
    public NativeGroupWindowAggregateOperator(
            ShellSpec spec,
            boolean eventTime,
            long size,
            long slide,
            boolean hop,
            boolean stateInStore) {
        super(spec, false, stateInStore);
        this.paneSize = paneSize(size, slide);
    }

    @Override
    protected boolean isProcessingTime(Plan plan) {
        return plan.getOperators(0).getWindowAggregate().getTimeField() < 0;
    }

    /** Processing time: a batch holds the rows of one pane (a row of the next flushes it first). */
    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        if (proctime) {
            assignProcessingTime(paneSize, 0, ZoneOffset.UTC);
        }
        super.processElement(element);
    }

    /** Flink's SlidingWindowAssigner pane: gcd(size, slide) (the size for TUMBLE). */
    public static long paneSize(long size, long slide) {
        return slide == 0 ? size : paneSize(slide, size % slide);
    }
}
