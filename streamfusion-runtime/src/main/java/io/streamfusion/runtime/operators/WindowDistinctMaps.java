package io.streamfusion.runtime.operators;

import io.streamfusion.runtime.jni.NativeWindowAggregate;

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

import javax.annotation.Nullable;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The DISTINCT maps of a window aggregation in Flink's layout (PerWindowStateDataViewStore): per
 * map a keyed MapState from the value (Flink's external representation) to its BIGINT bitmask,
 * namespaced by the window's state namespace, and for a nullable value a ValueState {@code
 * stateId + "_null_state"} in the same namespace. The native aggregation lists the (group,
 * value) entries a batch touches; this reads them before the batch is combined and writes the
 * changed ones after.
 *
 * @param <N> the state namespace (the slice end, or a {@code TimeWindow})
 */
final class WindowDistinctMaps<N> {

    private final InternalMapState<RowData, N, Object, Object>[] maps;
    private final InternalValueState<RowData, N, Object>[] nulls;
    private final RowData.FieldGetter[] getters;
    private final DataStructureConverter<Object, Object>[] converters;
    private final RowDataSerializer[] valueSerializers;
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
        }
    }

    /**
     * Reads the entries the prepared batch touches into {@link #masks} and {@link #present};
     * groups are {@code keys} with their state {@code namespaces}.
     */
    void read(NativeWindowAggregate agg, RowData[] keys, N[] namespaces) throws Exception {
        lookups = agg.lookups();
        int n = lookups.groups.length;
        values = new Object[n];
        masks = new long[n];
        present = new byte[n];
        MemorySegment segment = MemorySegmentFactory.wrap(lookups.values);
        BinaryRowData image = new BinaryRowData(1);
        for (int p = 0; p < n; p++) {
            int m = lookups.maps[p];
            int g = lookups.groups[p];
            image.pointTo(segment, lookups.offsets[p], lookups.offsets[p + 1] - lookups.offsets[p]);
            Object internal = getters[m].getFieldOrNull(image);
            values[p] = internal == null ? null : converters[m].toExternal(internal);
            setKey.accept(keys[g]);
            Object mask;
            if (values[p] == null) {
                nulls[m].setCurrentNamespace(namespaces[g]);
                mask = nulls[m].value();
            } else {
                maps[m].setCurrentNamespace(namespaces[g]);
                mask = maps[m].get(values[p]);
            }
            if (mask != null) {
                masks[p] = (Long) mask;
                present[p] = 1;
            }
        }
    }

    /** Puts the entries the last combine changed. */
    void write(NativeWindowAggregate agg, RowData[] keys, N[] namespaces) throws Exception {
        NativeWindowAggregate.Updated updated = agg.updated();
        for (int i = 0; i < updated.lookups.length; i++) {
            int p = updated.lookups[i];
            int m = lookups.maps[p];
            int g = lookups.groups[p];
            setKey.accept(keys[g]);
            if (values[p] == null) {
                nulls[m].setCurrentNamespace(namespaces[g]);
                nulls[m].update(updated.values[i]);
            } else {
                maps[m].setCurrentNamespace(namespaces[g]);
                maps[m].put(values[p], updated.values[i]);
            }
        }
        lookups = null;
        values = null;
        masks = null;
        present = null;
    }

    /**
     * Appends every entry of the current key's maps in {@code namespace} to {@code out} for fire
     * {@code fire}: each map in its iteration order, the NULL value last (Flink's
     * NullAwareMapIterator).
     */
    void appendEntries(N namespace, int fire, FireEntries out) throws Exception {
        appendEntries(namespace, null, fire, out);
    }

    /**
     * A CUMULATE window's merge (its current slice's maps into its first slice's): as above for
     * the entries in {@code from}, each with its value in namespace {@code into}.
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
                    out.add(
                            fire,
                            m,
                            (Long) entry.getValue(),
                            row(m, entry.getKey()),
                            valueSerializers[m]);
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
                    out.addMerged(
                            fire,
                            m,
                            (Long) entry.getValue(),
                            key,
                            (Long) maps[m].get(key),
                            row(m, key),
                            valueSerializers[m]);
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
                out.add(fire, m, (Long) mask, row(m, null), valueSerializers[m]);
            } else {
                nulls[m].setCurrentNamespace(into);
                out.addMerged(
                        fire,
                        m,
                        (Long) mask,
                        null,
                        (Long) nulls[m].value(),
                        row(m, null),
                        valueSerializers[m]);
            }
        }
    }

    /** A map value as a one-field row of Flink's internal data (null: the NULL value). */
    private RowData row(int m, @Nullable Object key) {
        return GenericRowData.of(key == null ? null : converters[m].toInternal(key));
    }

    /** Puts {@code value} for {@code key} (null: the NULL value) in the current key's map m. */
    void put(N namespace, int m, Object key, long value) throws Exception {
        if (key == null) {
            nulls[m].setCurrentNamespace(namespace);
            nulls[m].update(value);
        } else {
            maps[m].setCurrentNamespace(namespace);
            maps[m].put(key, value);
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
