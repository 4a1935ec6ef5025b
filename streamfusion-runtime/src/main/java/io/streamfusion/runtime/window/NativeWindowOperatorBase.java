package io.streamfusion.runtime.window;

import io.streamfusion.runtime.island.NativeBatchOperator;
import io.streamfusion.runtime.island.ShellSpec;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.metrics.Meter;
import org.apache.flink.metrics.MeterView;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.window.TimeWindow;
import org.apache.flink.table.runtime.util.TimeWindowUtil;

import java.time.ZoneId;
import java.util.Collections;

/**
 * What the keyed window aggregation shells share: keys are set per group and per fired timer, not
 * per record; Flink's timers queue the fired windows, whose results are computed natively in bulk
 * ({@link #drainFires}) before the watermark that fired them is forwarded, before a checkpoint
 * barrier and at the end; the native aggregation is closed with the operator.
 */
abstract class NativeWindowOperatorBase extends NativeBatchOperator {

    private static final long serialVersionUID = 1L;

    private final boolean keepsWatermark;

    private transient ListState<Long> watermarkState;

    /** Processing time: the shifted time of the current batch's rows, which share one slice. */
    protected transient long batchTime;

    private transient long batchSlice;
    private transient long lastTriggeredProcessingTime;
    private transient boolean drainScheduled;

    /**
     * @param keepsWatermark keep WindowAggOperator's union list state "watermark" (the window TVF
     *     operators; not the legacy WindowOperator)
     */
    protected NativeWindowOperatorBase(
            ShellSpec spec, long maxDelayMillis, boolean keepsWatermark) {
        super(spec, maxDelayMillis);
        this.keepsWatermark = keepsWatermark;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        if (!keepsWatermark) {
            return;
        }
        // WindowAggOperator's: the lowest watermark of all subtasks is restored.
        watermarkState =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>("watermark", LongSerializer.INSTANCE));
        if (context.isRestored()) {
            long min = Long.MAX_VALUE;
            for (Long watermark : watermarkState.get()) {
                min = Math.min(watermark, min);
            }
            if (min != Long.MAX_VALUE) {
                currentWatermark = min;
            }
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (keepsWatermark) {
            watermarkState.update(Collections.singletonList(currentWatermark));
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        lastTriggeredProcessingTime = Long.MIN_VALUE;
    }

    /**
     * Processing time: a batch holds the rows of one slice ({@code slice} ms from {@code offset},
     * of the time shifted to {@code zone}); a row of another slice flushes the batch first. All
     * rows of a batch then get the slice of their arrival ({@link #batchTime}).
     */
    protected void assignProcessingTime(long slice, long offset, ZoneId zone) throws Exception {
        long now =
                TimeWindowUtil.toUtcTimestampMills(
                        getProcessingTimeService().getCurrentProcessingTime(), zone);
        long sliceEnd = TimeWindow.getWindowStartWithOffset(now, offset, slice) + slice;
        if (batch.numRows() > 0 && sliceEnd != batchSlice) {
            flushGuarded();
        }
        batchSlice = sliceEnd;
        batchTime = now;
    }

    /**
     * A processing-time timer: rows buffered so far reach state before the first window of this
     * time fires (they arrived before it, and Flink accumulates per record), then {@code fire}
     * queues the window; the windows every due timer fired are emitted together after the timer
     * service's call. Those rows may register this very timer again (the service has already taken
     * it off its queue, so it would fire twice, the second time over panes the first left for later
     * windows): that copy is deleted, as Flink registers it before it fires.
     */
    protected <N> void fireOnProcessingTime(
            InternalTimer<RowData, N> timer, InternalTimerService<N> timers, FireAction fire)
            throws Exception {
        if (timer.getTimestamp() > lastTriggeredProcessingTime) {
            lastTriggeredProcessingTime = timer.getTimestamp();
            flushGuarded();
            setCurrentKey(timer.getKey());
            timers.deleteProcessingTimeTimer(timer.getNamespace(), timer.getTimestamp());
        }
        fire.run();
        if (!drainScheduled) {
            drainScheduled = true;
            getProcessingTimeService()
                    .registerTimer(
                            getProcessingTimeService().getCurrentProcessingTime(),
                            time -> {
                                drainScheduled = false;
                                drainFires();
                            });
        }
    }

    /** Queues a fired window. */
    protected interface FireAction {
        void run() throws Exception;
    }

    /** Computes and emits the queued windows' results. */
    protected abstract void drainFires() throws Exception;

    /** The native aggregation, closed with the operator (null before open). */
    protected abstract AutoCloseable nativeAggregate();

    /** Flink's "numLateRecordsDropped" counter and "lateRecordsDroppedRate" meter. */
    protected Meter lateRecordsDroppedMeter() {
        return metrics.meter(
                "lateRecordsDroppedRate", new MeterView(metrics.counter("numLateRecordsDropped")));
    }

    @Override
    public boolean hasKeyContext1() {
        return false;
    }

    /** Fired windows are emitted before their watermark is forwarded. */
    @Override
    public boolean useInterruptibleTimers() {
        return false;
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        drainFires();
    }

    @Override
    public void endInput() throws Exception {
        super.endInput();
        drainFires();
    }

    @Override
    public void finish() throws Exception {
        flushGuarded();
        drainFires();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            AutoCloseable agg = nativeAggregate();
            if (agg != null) {
                agg.close();
            }
        }
    }
}
