package io.streamfusion.runtime.window;

import io.streamfusion.runtime.NativePipeline;

import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.runtime.util.TimeWindowUtil;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Moves windows between native-owned state and Flink's layout of them, so that savepoints stay
 * interchangeable with stock Flink (and with the native operator over Flink state): Flink's keyed
 * {@code ValueState} "window-aggs" (namespace: slice end) and event-time timers "window-timers"
 * (namespace: window end, time: window end - 1, UTC), as WindowAggOperator keeps them.
 *
 * <ul>
 *   <li>{@link #importInto}: after a restore, the windows found in Flink's layout are moved into
 *       the native state (and removed from Flink's);
 *   <li>{@link #export}: for a savepoint, the native windows are written in Flink's layout, and
 *       {@link Exported#clear} removes them again once the savepoint's synchronous part is done.
 * </ul>
 *
 * <p>Sections are those of the native snapshot (owned_window_aggregate.h): little endian, per key
 * its image, its slices (end, accumulator image) and its timers (window end).
 */
final class FlinkWindowState {

    /** The keyed state of Flink's window aggregation. */
    static final String STATE_NAME = "window-aggs";

    /** Its timer service. */
    static final String TIMERS_NAME = "window-timers";

    private final InternalValueState<RowData, Long, RowData> state;
    private final InternalTimerService<Long> timers;
    private final RowDataSerializer accSerializer;
    private final int keyArity;
    private final int accArity;
    private final KeyContext keys;

    FlinkWindowState(
            InternalValueState<RowData, Long, RowData> state,
            InternalTimerService<Long> timers,
            RowDataSerializer accSerializer,
            int keyArity,
            KeyContext keys) {
        this.state = state;
        this.timers = timers;
        this.accSerializer = accSerializer;
        this.keyArity = keyArity;
        this.accArity = accSerializer.getArity();
        this.keys = keys;
    }

    /** One key's windows. */
    private static final class KeyWindows {
        final List<Long> slices = new ArrayList<>();
        final List<byte[]> accs = new ArrayList<>();
        final List<Long> timers = new ArrayList<>();
    }

    /**
     * Moves every window in Flink's layout into {@code agg}; returns the number of keys moved.
     * {@code stateKeys} lists the state's (key, slice end) pairs.
     */
    int importInto(NativePipeline agg, Stream<Tuple2<RowData, Long>> stateKeys, int maxParallelism)
            throws Exception {
        List<Tuple2<RowData, Long>> entries = stateKeys.collect(Collectors.toList());
        Map<BinaryRowData, KeyWindows> windows = new LinkedHashMap<>();
        ImageBuffer image = new ImageBuffer();
        for (Tuple2<RowData, Long> entry : entries) {
            BinaryRowData key = ((BinaryRowData) entry.f0).copy();
            keys.setCurrentKey(key);
            state.setCurrentNamespace(entry.f1);
            RowData acc = state.value();
            if (acc != null) {
                image.clear();
                image.append(acc, accSerializer);
                KeyWindows w = windows.computeIfAbsent(key, k -> new KeyWindows());
                w.slices.add(entry.f1);
                w.accs.add(Arrays.copyOf(image.bytes(), image.offsets()[1]));
            }
            state.clear();
        }
        // Each timer's key, window end and time; the timer service sets the key as current.
        List<BinaryRowData> timerKeys = new ArrayList<>();
        List<long[]> timerEndsAndTimes = new ArrayList<>();
        timers.forEachEventTimeTimer(
                (windowEnd, time) -> {
                    timerKeys.add(((BinaryRowData) keys.getCurrentKey()).copy());
                    timerEndsAndTimes.add(new long[] {windowEnd, time});
                });
        for (int t = 0; t < timerKeys.size(); t++) {
            long[] endAndTime = timerEndsAndTimes.get(t);
            keys.setCurrentKey(timerKeys.get(t));
            timers.deleteEventTimeTimer(endAndTime[0], endAndTime[1]);
            windows.computeIfAbsent(timerKeys.get(t), k -> new KeyWindows())
                    .timers
                    .add(endAndTime[0]);
        }
        Map<Integer, List<Map.Entry<BinaryRowData, KeyWindows>>> byGroup = new TreeMap<>();
        for (Map.Entry<BinaryRowData, KeyWindows> e : windows.entrySet()) {
            int group = KeyGroupRangeAssignment.assignToKeyGroup(e.getKey(), maxParallelism);
            byGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(e);
        }
        for (Map.Entry<Integer, List<Map.Entry<BinaryRowData, KeyWindows>>> group :
                byGroup.entrySet()) {
            agg.restore(group.getKey(), section(group.getValue()));
        }
        return windows.size();
    }

    private static byte[] section(List<Map.Entry<BinaryRowData, KeyWindows>> keys) {
        int size = 4;
        for (Map.Entry<BinaryRowData, KeyWindows> e : keys) {
            KeyWindows w = e.getValue();
            size += 4 + e.getKey().getSizeInBytes() + 4 + 4 + 8 * w.timers.size();
            for (byte[] acc : w.accs) {
                size += 8 + 4 + acc.length;
            }
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(keys.size());
        for (Map.Entry<BinaryRowData, KeyWindows> e : keys) {
            BinaryRowData key = e.getKey();
            out.putInt(key.getSizeInBytes());
            out.put(
                    BinarySegmentUtils.copyToBytes(
                            key.getSegments(), key.getOffset(), key.getSizeInBytes()));
            KeyWindows w = e.getValue();
            out.putInt(w.slices.size());
            for (int i = 0; i < w.slices.size(); i++) {
                out.putLong(w.slices.get(i));
                out.putInt(w.accs.get(i).length);
                out.put(w.accs.get(i));
            }
            out.putInt(w.timers.size());
            for (long timer : w.timers) {
                out.putLong(timer);
            }
        }
        return out.array();
    }

    /** A window's timer time, as WindowAggOperator sets it (native state is UTC only). */
    private static long timerTime(long windowEnd) {
        return TimeWindowUtil.toEpochMillsForTimer(windowEnd - 1, ZoneOffset.UTC);
    }

    /** Windows written in Flink's layout for a savepoint, to be removed after it. */
    final class Exported {
        private final List<BinaryRowData> rows = new ArrayList<>();
        private final List<long[]> slices = new ArrayList<>();
        private final List<long[]> windowTimers = new ArrayList<>();

        /** Removes the written windows from Flink's state and timers. */
        void clear() {
            for (int k = 0; k < rows.size(); k++) {
                keys.setCurrentKey(rows.get(k));
                for (long slice : slices.get(k)) {
                    state.setCurrentNamespace(slice);
                    state.clear();
                }
                for (long windowEnd : windowTimers.get(k)) {
                    timers.deleteEventTimeTimer(windowEnd, timerTime(windowEnd));
                }
            }
        }
    }

    /** Writes the windows of {@code snapshot} (the native state) in Flink's layout. */
    Exported export(NativePipeline.Snapshot snapshot) throws Exception {
        Exported exported = new Exported();
        ByteBuffer in = ByteBuffer.wrap(snapshot.bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int s = 0; s < snapshot.keyGroups.length; s++) {
            in.position(snapshot.offsets[s]);
            int numKeys = in.getInt();
            for (int k = 0; k < numKeys; k++) {
                int keyLength = in.getInt();
                BinaryRowData key =
                        ImageBuffer.ownRow(
                                keyArity, snapshot.bytes, in.position(), in.position() + keyLength);
                in.position(in.position() + keyLength);
                keys.setCurrentKey(key);
                long[] slices = new long[in.getInt()];
                for (int i = 0; i < slices.length; i++) {
                    slices[i] = in.getLong();
                    int accLength = in.getInt();
                    state.setCurrentNamespace(slices[i]);
                    state.update(
                            ImageBuffer.ownRow(
                                    accArity,
                                    snapshot.bytes,
                                    in.position(),
                                    in.position() + accLength));
                    in.position(in.position() + accLength);
                }
                long[] windowEnds = new long[in.getInt()];
                for (int i = 0; i < windowEnds.length; i++) {
                    windowEnds[i] = in.getLong();
                    timers.registerEventTimeTimer(windowEnds[i], timerTime(windowEnds[i]));
                }
                exported.rows.add(key);
                exported.slices.add(slices);
                exported.windowTimers.add(windowEnds);
            }
        }
        return exported;
    }
}
