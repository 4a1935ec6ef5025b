package io.streamfusion.runtime.window;

import io.streamfusion.plan.Plan;
import io.streamfusion.plan.WindowAggregateNode.Window;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.state.StateCodec;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.window.TimeWindow;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.runtime.util.TimeWindowUtil;

import java.time.ZoneId;

/**
 * The operator shell of a native window TVF aggregation over TUMBLE, HOP or CUMULATE windows in
 * Flink state (event time with RocksDB or {@code streamfusion.window.state=FLINK}, or processing
 * time), standing in for Flink's WindowAggOperator with its slicing processors: the one-phase
 * aggregation, or the global phase over the local phase's accumulators. State and timers are
 * Flink's own and laid out as Flink lays them out: the keyed {@code ValueState<RowData>}
 * "window-aggs" with the slice end as namespace ({@link LongSerializer}) and a {@link
 * RowDataSerializer} of the accumulator types, the DISTINCT and MIN/MAX maps namespaced by slice
 * end, the timer service "window-timers" (one timer per key and window at window end - 1, in the
 * shift time zone), and the union list state "watermark". Checkpoints, RocksDB, restore and
 * rescaling work as for the stock operator.
 *
 * <p>The aggregation runs as a native island on the operator contract
 * (native/src/streamfusion/operators/window/slice_window_operator.h) and reaches its state and
 * timers through the state port ({@link PortWindowOperator}). Rows are collected into a batch
 * (Flink's window buffer) and combined into state when the batch is full, before a watermark,
 * before a checkpoint barrier, at end of input and, on processing time, at a new slice and after
 * {@code maxDelayMillis}.
 *
 * <p>Flink's timers fire the windows. What only the timer service's order can decide stays here, in
 * the timer callback, as Flink's fireWindow does it: a HOP window registers the next window's timer
 * unless it is empty (its slices' COUNT(*) is 0; the slices read for it are cached in the port, so
 * that the native operator's reads of them do not read the backend again), a CUMULATE window the
 * next step's; the timer may fire within the same watermark, among other keys' timers. The windows
 * are then read, emitted and cleared natively, before the watermark is forwarded.
 */
public class NativeWindowAggregateOperator extends PortWindowOperator<Long> {

    private static final long serialVersionUID = 1L;

    private final boolean eventTime;
    private final Window window;
    private final long size;
    private final long slice;
    private final long offset;
    private final int countStarField;
    private final String shiftTimeZone;

    private transient ZoneId zone;

    /**
     * @param eventTime false for a processing-time window
     * @param size the window size (CUMULATE: the max size)
     * @param slice the slice size: the window size for TUMBLE, the slide for HOP, the step for
     *     CUMULATE
     * @param countStarField the accumulator field of COUNT(*), -1 if none (Flink's
     *     indexOfCountStar): a window whose count is 0 is empty and not emitted
     * @param shiftTimeZone the time zone windows are computed in (UTC but for a processing-time
     *     window on TIMESTAMP_LTZ)
     */
    public NativeWindowAggregateOperator(
            ShellSpec spec,
            boolean eventTime,
            Window window,
            long size,
            long slice,
            long offset,
            int countStarField,
            ZoneId shiftTimeZone) {
        super(spec, true, false);
        this.eventTime = eventTime;
        this.window = window;
        this.size = size;
        this.slice = slice;
        this.offset = offset;
        this.countStarField = countStarField;
        this.shiftTimeZone = shiftTimeZone.getId();
    }

    @Override
    protected boolean isProcessingTime(Plan plan) {
        return !eventTime;
    }

    @Override
    protected TypeSerializer<Long> namespaceSerializer() {
        return LongSerializer.INSTANCE;
    }

    @Override
    protected StateCodec namespaceCodec() {
        return StateCodec.longValue();
    }

    /** The native operator's timers are at a window's end - 1 in the shift time zone. */
    @Override
    protected long timerTime(long nativeTime) {
        return TimeWindowUtil.toEpochMillsForTimer(nativeTime, zone());
    }

    /** A row's processing time in the shift time zone, as the batch's slice was assigned by. */
    @Override
    protected long arrivalTime() {
        return batchTime;
    }

    private ZoneId zone() {
        if (zone == null) {
            zone = ZoneId.of(shiftTimeZone);
        }
        return zone;
    }

    /**
     * Processing time: a batch holds the rows of one slice (a row of the next flushes it first).
     */
    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        if (proctime) {
            assignProcessingTime(slice, offset, zone());
        }
        super.processElement(element);
    }

    @Override
    public void onEventTime(InternalTimer<RowData, Long> timer) throws Exception {
        registerNextWindow(timer);
        super.onEventTime(timer);
    }

    @Override
    public void onProcessingTime(InternalTimer<RowData, Long> timer) throws Exception {
        fireOnProcessingTime(
                timer,
                timers,
                () -> {
                    registerNextWindow(timer);
                    port.timerFired(timer.getKey(), timer.getNamespace(), timer.getTimestamp());
                });
    }

    /**
     * Flink's nextTriggerWindow after a window fired (the timer's key is the current key): a HOP
     * window's next window unless this one is empty, a CUMULATE window's next step within its
     * cycle.
     */
    private void registerNextWindow(InternalTimer<RowData, Long> timer) throws Exception {
        long windowEnd = timer.getNamespace();
        long next;
        if (window == Window.HOP) {
            long count = 0;
            for (long s = windowEnd; s > windowEnd - size; s -= slice) {
                windowAggs.setCurrentNamespace(s);
                RowData acc = windowAggs.value();
                port.cacheValue(0, timer.getKey(), s, acc);
                if (acc != null && countStarField >= 0) {
                    count += acc.getLong(countStarField);
                }
            }
            if (countStarField >= 0 && count == 0) {
                return;
            }
            next = windowEnd + slice;
        } else if (window == Window.CUMULATE) {
            long start = TimeWindow.getWindowStartWithOffset(windowEnd - 1, offset, size);
            next = windowEnd + slice;
            if (next > start + size) {
                return;
            }
        } else {
            return;
        }
        long time = timerTime(next - 1);
        if (eventTime) {
            timers.registerEventTimeTimer(next, time);
        } else {
            timers.registerProcessingTimeTimer(next, time);
        }
    }
}
