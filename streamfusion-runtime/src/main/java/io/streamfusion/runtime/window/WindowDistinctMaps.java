package io.streamfusion.runtime.window;

import io.streamfusion.runtime.aggregate.DistinctState;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.runtime.typeutils.ExternalSerializer;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.io.IOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;

import javax.annotation.Nullable;

/**
 * The DISTINCT maps of a window aggregation in Flink's layout (PerWindowStateDataViewStore): per
 * map a keyed MapState from the value (Flink's external representation) to its BIGINT bitmask or
 * count, namespaced by the window's state namespace, and for a nullable value a ValueState {@code
 * stateId + "_null_state"} in the same namespace. The native aggregation lists the (group, value)
 * entries a batch touches; this reads them before the batch is combined and writes the changed ones
 * after. A map of several DISTINCT calls counting (HOP and CUMULATE windows) holds a {@code long[]}
 * of a count per call: natively its lanes, whose lookups and fire entries come consecutively. The
 * MapViews of MIN/MAX over an updating input (value to count, no NULL value) follow the DISTINCT
 * maps and are read and written alike; a rescan reads a whole map ({@link #supplyWholeMaps}).
 *
 * @param <N> the state namespace (the slice end, or a {@code TimeWindow})
 */
final class WindowDistinctMaps<N> {

    private final InternalMapState<RowData, N, Object, Object>[] maps;
    private final InternalValueState<RowData, N, Object>[] nulls;
    private final RowData.FieldGetter[] getters;
    private final DataStructureConverter<Object, Object>[] converters;
    private final RowDataSerializer[] valueSerializers;
    private final int[] lanes;
    private final Consumer<RowData> setKey;

    private NativeWindowAggregate.Lookups lookups;
    private Object[] values;

    /** After {@link #read}: each lookup's bitmask, and 1 where the entry is in state. */
    long[] masks;

    byte[] present;

    @SuppressWarnings({"unchecked", "rawtypes"})
    WindowDistinctMaps(
            DistinctState[] distincts,
            KeyedStateBackend<RowData> backend,
            TypeSerializer<N> namespaceSerializer,
            ClassLoader classLoader,
            Consumer<RowData> setKey)
            throws Exception {
        int n = distincts.length;
        maps = new InternalMapState[n];
        nulls = new InternalValueState[n];
        getters = new RowData.FieldGetter[n];
        converters = new DataStructureConverter[n];
        valueSerializers = new RowDataSerializer[n];
        lanes = new int[n];
        this.setKey = setKey;
        for (int m = 0; m < n; m++) {
            DistinctState d = distincts[m];
            maps[m] =
                    (InternalMapState)
                            backend.getOrCreateKeyedState(
                                    namespaceSerializer,
                                    new MapStateDescriptor<>(
                                            d.stateId,
                                            (TypeSerializer) ExternalSerializer.of(d.keyType),
                                            (TypeSerializer) ExternalSerializer.of(d.valueType)));
            if (d.nullKey) {
                nulls[m] =
                        (InternalValueState)
                                backend.getOrCreateKeyedState(
                                        namespaceSerializer,
                                        new ValueStateDescriptor<>(
                                                d.stateId + DistinctState.NULL_STATE_POSTFIX,
                                                (TypeSerializer)
                                                        ExternalSerializer.of(d.valueType)));
            }
            getters[m] = RowData.createFieldGetter(d.keyType.getLogicalType(), 0);
            converters[m] =
                    (DataStructureConverter) DataStructureConverters.getConverter(d.keyType);
            converters[m].open(classLoader);
            valueSerializers[m] = new RowDataSerializer(d.keyType.getLogicalType());
            lanes[m] = d.lanes;
        }
    }

    /**
     * Reads the entries a batch touches ({@code lookups}) into {@link #masks} and {@link #present};
     * groups are {@code keys} with their state {@code namespaces}.
     */
    void read(NativeWindowAggregate.Lookups lookups, RowData[] keys, N[] namespaces)
            throws Exception {
        this.lookups = lookups;
        int n = lookups.groups.length;
        values = new Object[n];
        masks = new long[n];
        present = new byte[n];
        MemorySegment segment = MemorySegmentFactory.wrap(lookups.values);
        BinaryRowData image = new BinaryRowData(1);
        for (int p = 0; p < n; ) {
            int m = lookups.maps[p];
            int g = lookups.groups[p];
            image.pointTo(segment, lookups.offsets[p], lookups.offsets[p + 1] - lookups.offsets[p]);
            Object internal = getters[m].getFieldOrNull(image);
            Object value = internal == null ? null : converters[m].toExternal(internal);
            setKey.accept(keys[g]);
            Object mask;
            if (value == null) {
                nulls[m].setCurrentNamespace(namespaces[g]);
                mask = nulls[m].value();
            } else {
                maps[m].setCurrentNamespace(namespaces[g]);
                mask = maps[m].get(value);
            }
            // A long[] entry is read once for its lanes' consecutive lookups.
            for (int lane = 0; lane < lanes[m]; lane++, p++) {
                values[p] = value;
                if (mask != null) {
                    masks[p] = lanes[m] == 1 ? (Long) mask : ((long[]) mask)[lane];
                    present[p] = 1;
                }
            }
        }
    }

    /**
     * MIN/MAX over an updating input: reads every entry of the maps a native combine or fire asked
     * for (request q of group or fire g: the map in {@code namespaceOf.apply(g)} under key {@code
     * keyOf.apply(g)}) and hands them over; the step then runs again.
     */
    void supplyWholeMaps(WholeMapSteps agg, IntFunction<RowData> keyOf, IntFunction<N> namespaceOf)
            throws Exception {
        NativeWindowAggregate.WholeMaps requests = agg.wholeMaps();
        NativeMetrics.addWholeMapLoads(requests.groups.length);
        ImageBuffer images = new ImageBuffer();
        int[] requestOf = new int[16];
        long[] counts = new long[16];
        int n = 0;
        for (int q = 0; q < requests.groups.length; q++) {
            int m = requests.maps[q];
            int g = requests.groups[q];
            setKey.accept(keyOf.apply(g));
            maps[m].setCurrentNamespace(namespaceOf.apply(g));
            Iterable<Map.Entry<Object, Object>> entries = maps[m].entries();
            if (entries == null) {
                continue;
            }
            for (Map.Entry<Object, Object> entry : entries) {
                if (n == requestOf.length) {
                    requestOf = Arrays.copyOf(requestOf, n * 2);
                    counts = Arrays.copyOf(counts, n * 2);
                }
                requestOf[n] = q;
                counts[n] = (Long) entry.getValue();
                images.append(row(m, entry.getKey()), valueSerializers[m]);
                n++;
            }
        }
        agg.supplyWholeMaps(requestOf, n, images.bytes(), images.offsets(), counts);
    }

    /** Puts the entries a combine changed, and removes those it emptied (as ~p). */
    void write(NativeWindowAggregate.Updated updated, RowData[] keys, N[] namespaces)
            throws Exception {
        for (int i = 0; i < updated.lookups.length; ) {
            boolean remove = updated.lookups[i] < 0;
            int p = remove ? ~updated.lookups[i] : updated.lookups[i];
            int m = lookups.maps[p];
            int g = lookups.groups[p];
            setKey.accept(keys[g]);
            // A changed long[] comes whole, as its lanes' consecutive lookups.
            Object value = remove ? null : valueOf(m, updated.values, i);
            i += lanes[m];
            put(namespaces[g], m, values[p], value);
        }
        lookups = null;
        values = null;
        masks = null;
        present = null;
    }

    /**
     * Appends every entry of the current key's maps in {@code namespace} to {@code out} for fire
     * (or group) {@code fire}: each map in its iteration order, the NULL value last (Flink's
     * NullAwareMapIterator).
     */
    void appendEntries(N namespace, int fire, FireEntries out) throws Exception {
        appendEntries(namespace, null, fire, out);
    }

    /**
     * A CUMULATE window's merge (its current slice's maps into its first slice's): as above for the
     * entries in {@code from}, each with its value in namespace {@code into}.
     */
    void appendMergeEntries(N from, N into, int fire, FireEntries out) throws Exception {
        appendEntries(from, into, fire, out);
    }

    private void appendEntries(N from, @Nullable N into, int fire, FireEntries out)
            throws Exception {
        for (int m = 0; m < maps.length; m++) {
            maps[m].setCurrentNamespace(from);
            Iterable<Map.Entry<Object, Object>> entries = maps[m].entries();
            if (entries != null && into == null) {
                for (Map.Entry<Object, Object> entry : entries) {
                    RowData row = row(m, entry.getKey());
                    for (int lane = 0; lane < lanes[m]; lane++) {
                        out.add(fire, m, lane(m, entry.getValue(), lane), row, valueSerializers[m]);
                    }
                }
            } else if (entries != null) {
                // Read first: the state is then asked for another namespace.
                List<Map.Entry<Object, Object>> read = new ArrayList<>();
                for (Map.Entry<Object, Object> entry : entries) {
                    read.add(new AbstractMap.SimpleEntry<>(entry.getKey(), entry.getValue()));
                }
                maps[m].setCurrentNamespace(into);
                for (Map.Entry<Object, Object> entry : read) {
                    Object key = entry.getKey();
                    addMerged(out, fire, m, entry.getValue(), key, maps[m].get(key));
                }
            }
            if (nulls[m] == null) {
                continue;
            }
            nulls[m].setCurrentNamespace(from);
            Object mask = nulls[m].value();
            if (mask == null) {
                continue;
            }
            if (into == null) {
                RowData row = row(m, null);
                for (int lane = 0; lane < lanes[m]; lane++) {
                    out.add(fire, m, lane(m, mask, lane), row, valueSerializers[m]);
                }
            } else {
                nulls[m].setCurrentNamespace(into);
                addMerged(out, fire, m, mask, null, nulls[m].value());
            }
        }
    }

    /** A CUMULATE entry with its first slice's value ({@code base}, null if none), per lane. */
    private void addMerged(
            FireEntries out, int fire, int m, Object mask, @Nullable Object key, Object base)
            throws IOException {
        RowData row = row(m, key);
        for (int lane = 0; lane < lanes[m]; lane++) {
            out.addMerged(
                    fire,
                    m,
                    lane(m, mask, lane),
                    key,
                    base == null ? null : lane(m, base, lane),
                    row,
                    valueSerializers[m]);
        }
    }

    /** Lane {@code lane} of map m's value (a Long, or for several lanes a long[]). */
    private long lane(int m, Object value, int lane) {
        return lanes[m] == 1 ? (Long) value : ((long[]) value)[lane];
    }

    /** Map m's value whose lanes start at {@code values[i]} (a Long, or a long[]). */
    Object valueOf(int m, long[] values, int i) {
        return lanes[m] == 1 ? (Object) values[i] : Arrays.copyOfRange(values, i, i + lanes[m]);
    }

    /** How many consecutive entries (a long[]'s lanes) a value of map m takes. */
    int lanes(int m) {
        return lanes[m];
    }

    /** A map value as a one-field row of Flink's internal data (null: the NULL value). */
    private RowData row(int m, @Nullable Object key) {
        return GenericRowData.of(key == null ? null : converters[m].toInternal(key));
    }

    /**
     * Puts {@code value} (a Long, or a long[] for several lanes; null removes the entry) for {@code
     * key} (null: the NULL value) in the current key's map m.
     */
    void put(N namespace, int m, @Nullable Object key, @Nullable Object value) throws Exception {
        if (key == null) {
            nulls[m].setCurrentNamespace(namespace);
            if (value == null) {
                nulls[m].clear();
            } else {
                nulls[m].update(value);
            }
        } else {
            maps[m].setCurrentNamespace(namespace);
            if (value == null) {
                maps[m].remove(key);
            } else {
                maps[m].put(key, value);
            }
        }
    }

    /** Clears the current key's maps in {@code namespace} (Flink's aggregator.cleanup). */
    void clear(N namespace) {
        for (int m = 0; m < maps.length; m++) {
            maps[m].setCurrentNamespace(namespace);
            maps[m].clear();
            if (nulls[m] != null) {
                nulls[m].setCurrentNamespace(namespace);
                nulls[m].clear();
            }
        }
    }
}
