package io.streamfusion.runtime.operators;

import io.streamfusion.plan.GroupAggregateNode;
import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.jni.KeyImages;
import io.streamfusion.runtime.jni.NativeGroupAggregate;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.runtime.transpose.FieldUse;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.runtime.typeutils.ExternalSerializer;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.runtime.util.StateConfigUtil;
import org.apache.flink.table.types.CollectionDataType;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The operator shell of a native non-windowed group aggregation, computing natively over
 * accumulators kept in Flink keyed state: Flink's StreamExecGroupAggregate without mini-batch (one
 * batch = some rows) or with it, and the Local/Global pair (one batch = one mini-batch bundle,
 * ended where Flink's bundle trigger ends it: at the mini-batch size, a watermark, a checkpoint
 * barrier or the end of input). The Local form keeps no state and is not keyed.
 *
 * <p>State is Flink's own: one {@code ValueState<RowData>} named "accState" with a {@link
 * RowDataSerializer} of the accumulator types, exactly as GroupAggFunction declares it, so
 * checkpoints, RocksDB, state TTL and rescaling work as for the stock operator.
 *
 * <p>Rows are collected into a batch and processed when it is full, before a watermark or watermark
 * status is forwarded, before a checkpoint barrier, at end of input, and after {@code
 * maxDelayMillis} of processing time. A batch costs two native calls and one state read and at most
 * one state write per distinct key: native code finds the distinct keys (as the BinaryRowData
 * images Flink's key selector builds), Java reads their accumulators, native code replays the rows
 * in input order with Flink's rules, and Java writes the accumulators back and emits the changelog
 * in Flink's order. Flink's per-record key extraction is skipped ({@link #hasKeyContext1}); the
 * shell sets each distinct key itself.
 */
public class NativeGroupAggregateOperator extends NativeBatchOperator {

    private static final long serialVersionUID = 1L;

    private static final byte ACTION_UPDATE = 1;
    private static final byte ACTION_CLEAR = 2;
    private static final int ACTIONS = 3;

    /** Or'ed into an action: the key's DISTINCT maps are cleared before entries are written. */
    private static final byte CLEAR_DISTINCT_MAPS = 4;

    private final byte[] plan;
    private final int keyArity;
    private final LogicalType[] accTypes;
    private final DistinctState[] distincts;
    private final int outputArity;
    private final long stateRetentionTime;
    private final long memoryBudgetBytes;

    private transient GroupAggregateNode.Mode mode;
    private transient boolean stateless;
    private transient StateTtlConfig ttl;
    private transient NativeGroupAggregate agg;
    private transient ValueState<RowData> accState;
    private transient RowDataSerializer accSerializer;
    private transient ImageBuffer accs;
    private transient int[] sizes;
    private transient MapState<Object, Object>[] distinctMaps;
    private transient ValueState<Object>[] distinctNulls;
    private transient RowData.FieldGetter[] distinctGetters;
    private transient DataStructureConverter<Object, Object>[] distinctConverters;
    private transient int[] lookupSizes;
    private transient RowDataSerializer[] mapKeySerializers;
    private transient ImageBuffer entryImages;

    /** FIRST/LAST_VALUE over retracting input: the values of each map, as rows and objects. */
    private transient boolean orderMaps;

    private transient ValueCodec[] valueCodecs;
    private transient int[] orderSizes;

    public NativeGroupAggregateOperator(
            byte[] plan,
            RowType inputType,
            int keyArity,
            LogicalType[] accTypes,
            DistinctState[] distincts,
            int outputArity,
            long stateRetentionTime,
            int batchSize,
            long maxDelayMillis,
            long memoryBudgetBytes) {
        super(inputType, batchSize, maxDelayMillis);
        this.plan = plan;
        this.keyArity = keyArity;
        this.accTypes = accTypes;
        this.distincts = distincts;
        this.outputArity = outputArity;
        this.stateRetentionTime = stateRetentionTime;
        this.memoryBudgetBytes = memoryBudgetBytes;
    }

    @Override
    public void open() throws Exception {
        super.open();
        Plan parsed = Plans.parse(plan);
        mode = parsed.getOperators(0).getGroupAggregate().getMode();
        stateless = mode == GroupAggregateNode.Mode.LOCAL;
        if (!stateless) {
            ttl = StateConfigUtil.createTtlConfig(stateRetentionTime);
            accState =
                    getRuntimeContext()
                            .getState(
                                    withTtl(
                                            new ValueStateDescriptor<>(
                                                    "accState",
                                                    InternalTypeInfo.ofFields(accTypes))));
            accSerializer = new RowDataSerializer(accTypes);
            openDistinctStates();
        }
        agg = new NativeGroupAggregate(plan, memoryBudgetBytes);
        openBatches(FieldUse.of(parsed), outputArity);
        accs = new ImageBuffer();
        sizes = new int[6];
        getMetricGroup().gauge("streamfusionNativeMemoryBytes", () -> agg.memoryBytes());
    }

    /** The DISTINCT maps' states, declared as Flink's generated aggregation declares them. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void openDistinctStates() {
        int n = distincts.length;
        distinctMaps = new MapState[n];
        distinctNulls = new ValueState[n];
        distinctGetters = new RowData.FieldGetter[n];
        distinctConverters = new DataStructureConverter[n];
        mapKeySerializers = new RowDataSerializer[n];
        for (int m = 0; m < n; m++) {
            DistinctState d = distincts[m];
            distinctMaps[m] =
                    getRuntimeContext()
                            .getMapState(
                                    withTtl(
                                            new MapStateDescriptor<>(
                                                    d.stateId,
                                                    (TypeSerializer)
                                                            ExternalSerializer.of(d.keyType),
                                                    (TypeSerializer)
                                                            ExternalSerializer.of(d.valueType))));
            if (d.nullKey) {
                distinctNulls[m] =
                        getRuntimeContext()
                                .getState(
                                        withTtl(
                                                new ValueStateDescriptor<>(
                                                        d.stateId
                                                                + DistinctState.NULL_STATE_POSTFIX,
                                                        (TypeSerializer)
                                                                ExternalSerializer.of(
                                                                        d.valueType))));
            }
            distinctGetters[m] = RowData.createFieldGetter(d.keyType.getLogicalType(), 0);
            distinctConverters[m] =
                    (DataStructureConverter) DataStructureConverters.getConverter(d.keyType);
            distinctConverters[m].open(getRuntimeContext().getUserCodeClassLoader());
            mapKeySerializers[m] = new RowDataSerializer(d.keyType.getLogicalType());
        }
        entryImages = new ImageBuffer();
        lookupSizes = new int[2];
        valueCodecs = new ValueCodec[n];
        ClassLoader loader = getRuntimeContext().getUserCodeClassLoader();
        for (int m = 0; m < n; m++) {
            DistinctState d = distincts[m];
            if (d.kind == DistinctState.VALUE_ORDERS) {
                valueCodecs[m] = new ValueCodec(d.keyType, loader);
                orderMaps = true;
            } else if (d.kind == DistinctState.ORDER_VALUES) {
                DataType element = ((CollectionDataType) d.valueType).getElementDataType();
                valueCodecs[m] = new ValueCodec(element, loader);
            }
        }
        orderSizes = new int[4];
    }

    /**
     * A FIRST/LAST_VALUE map's values as the native side passes them (one-field row images) and as
     * the state holds them (Flink's external objects of the view's type, copied out of the image's
     * bytes).
     */
    private static final class ValueCodec {
        final RowData.FieldGetter getter;
        final DataStructureConverter<Object, Object> converter;
        final TypeSerializer<Object> copier;
        final RowDataSerializer rows;
        final BinaryRowData image = new BinaryRowData(1);

        @SuppressWarnings({"unchecked", "rawtypes"})
        ValueCodec(DataType type, ClassLoader loader) {
            LogicalType logical = type.getLogicalType();
            getter = RowData.createFieldGetter(logical, 0);
            converter = (DataStructureConverter) DataStructureConverters.getConverter(type);
            converter.open(loader);
            copier = (TypeSerializer) InternalSerializers.create(logical);
            rows = new RowDataSerializer(logical);
        }

        Object read(MemorySegment images, int[] offsets, int i) {
            image.pointTo(images, offsets[i], offsets[i + 1] - offsets[i]);
            return converter.toExternal(copier.copy(getter.getFieldOrNull(image)));
        }

        void write(Object value, ImageBuffer out) throws IOException {
            out.append(GenericRowData.of(converter.toInternal(value)), rows);
        }
    }

    /** Every state gets the operator's TTL, as Flink's PerKeyStateDataViewStore gives it. */
    private <D extends StateDescriptor<?, ?>> D withTtl(D descriptor) {
        if (ttl.isEnabled()) {
            descriptor.enableTimeToLive(ttl);
        }
        return descriptor;
    }

    /** Keys are set per distinct key of a batch, not per record. */
    @Override
    public boolean hasKeyContext1() {
        return false;
    }

    /**
     * Without mini-batch only: a bundle ends where Flink's does (size, watermark, barrier, end).
     */
    @Override
    protected boolean flushesOnTimer() {
        return mode == GroupAggregateNode.Mode.GROUP_AGG;
    }

    @Override
    protected void flush() throws Exception {
        int rows = batch.numRows();
        if (rows == 0) {
            return;
        }
        KeyImages prepared = agg.prepare(batch.bytes(), batch.offsets(), rows);
        int numKeys = prepared.count;
        byte[] keyBytes = prepared.bytes;
        int[] keyOffsets = prepared.offsets;

        BinaryRowData[] keys = new BinaryRowData[numKeys];
        accs.clear();
        for (int k = 0; k < numKeys; k++) {
            BinaryRowData key =
                    ImageBuffer.ownRow(keyArity, keyBytes, keyOffsets[k], keyOffsets[k + 1]);
            keys[k] = key;
            if (stateless) {
                accs.appendEmpty();
                continue;
            }
            setCurrentKey(key);
            accs.append(accState.value(), accSerializer);
        }

        Lookups lookups = distincts.length == 0 ? null : readDistinctMaps(keys);
        if (orderMaps) {
            // The order-map entries every run of the batch reads.
            supplyOrderEntries(keys);
        }
        while (true) {
            agg.process(
                    accs.bytes(),
                    accs.offsets(),
                    lookups == null ? null : lookups.values,
                    lookups == null ? null : lookups.present,
                    sizes);
            if (sizes[4] == 0 && sizes[5] == 0) {
                break;
            }
            if (sizes[4] > 0) {
                supplyWholeMaps(keys, lookups, sizes[4]);
            }
            if (sizes[5] > 0) {
                supplyOrderEntries(keys);
            }
        }
        int outRows = sizes[0];
        byte[] outBytes = new byte[sizes[1]];
        int[] outOffsets = new int[outRows + 1];
        int[] sources = new int[outRows];
        byte[] newAccs = new byte[sizes[2]];
        int[] newAccOffsets = new int[numKeys + 1];
        byte[] actions = new byte[numKeys];
        int[] updated = lookups == null ? null : new int[sizes[3]];
        long[] updatedValues = lookups == null ? null : new long[sizes[3]];
        agg.copyOutput(
                outBytes,
                outOffsets,
                sources,
                newAccs,
                newAccOffsets,
                actions,
                updated,
                updatedValues);
        if (lookups != null) {
            writeDistinctMaps(keys, actions, lookups, updated, updatedValues);
        }
        if (orderMaps) {
            writeOrderMaps(keys);
        }

        int accArity = accTypes.length;
        for (int k = 0; k < numKeys; k++) {
            int action = actions[k] & ACTIONS;
            if (action == ACTION_UPDATE) {
                setCurrentKey(keys[k]);
                accState.update(
                        ImageBuffer.ownRow(
                                accArity, newAccs, newAccOffsets[k], newAccOffsets[k + 1]));
            } else if (action == ACTION_CLEAR) {
                setCurrentKey(keys[k]);
                accState.clear();
            }
        }

        // GroupAggFunction's output keeps its input record's timestamp; a bundle's has none.
        emit(
                outBytes,
                outOffsets,
                outRows,
                mode == GroupAggregateNode.Mode.GROUP_AGG ? sources : null);
        finishBatch(outRows);
    }

    /** The distinct-map entries a batch reads, and what the maps hold for them. */
    private static final class Lookups {
        int[] keys;
        int[] maps;
        Object[] distinctKeys;
        long[] values;
        byte[] present;
    }

    /**
     * Applies a batch's DISTINCT map changes in Flink's order: maps of a group that emptied are
     * cleared (function.cleanup()), then entries are put, or removed when given as ~p (a count back
     * at zero).
     */
    private void writeDistinctMaps(
            BinaryRowData[] keys, byte[] actions, Lookups lookups, int[] updated, long[] values)
            throws Exception {
        for (int k = 0; k < keys.length; k++) {
            if ((actions[k] & CLEAR_DISTINCT_MAPS) == 0) {
                continue;
            }
            setCurrentKey(keys[k]);
            for (int m = 0; m < distincts.length; m++) {
                distinctMaps[m].clear();
                if (distinctNulls[m] != null) {
                    distinctNulls[m].clear();
                }
            }
        }
        for (int i = 0; i < updated.length; ) {
            boolean remove = updated[i] < 0;
            int p = remove ? ~updated[i] : updated[i];
            setCurrentKey(keys[lookups.keys[p]]);
            int m = lookups.maps[p];
            int lanes = distincts[m].lanes;
            // A long[] map's entry comes as its lanes' consecutive lookups.
            Object value = lanes == 1 ? values[i] : Arrays.copyOfRange(values, i, i + lanes);
            i += lanes;
            Object key = lookups.distinctKeys[p];
            if (key == null) {
                if (remove) {
                    distinctNulls[m].clear();
                } else {
                    distinctNulls[m].update(value);
                }
            } else if (remove) {
                distinctMaps[m].remove(key);
            } else {
                distinctMaps[m].put(key, value);
            }
        }
    }

    /**
     * MIN/MAX over retracting input whose extreme left a group: Flink scans the group's whole map
     * (updateMin/updateMax). Hands every entry of the requested maps to the native aggregation and
     * appends them to {@code lookups}, in the same order.
     */
    private void supplyWholeMaps(BinaryRowData[] keys, Lookups lookups, int requests)
            throws Exception {
        int[] requestKeys = new int[requests];
        int[] requestMaps = new int[requests];
        agg.copyMapRequests(requestKeys, requestMaps);
        NativeMetrics.addWholeMapLoads(requests);
        List<Integer> requestOf = new ArrayList<>();
        List<Object> entryKeys = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        entryImages.clear();
        for (int q = 0; q < requests; q++) {
            int m = requestMaps[q];
            setCurrentKey(keys[requestKeys[q]]);
            Iterable<Map.Entry<Object, Object>> entries = distinctMaps[m].entries();
            if (entries == null) {
                continue;
            }
            for (Map.Entry<Object, Object> entry : entries) {
                requestOf.add(q);
                entryKeys.add(entry.getKey());
                counts.add((Long) entry.getValue());
                entryImages.append(
                        GenericRowData.of(distinctConverters[m].toInternal(entry.getKey())),
                        mapKeySerializers[m]);
            }
        }
        int n = requestOf.size();
        int[] requestArray = new int[n];
        for (int i = 0; i < n; i++) {
            requestArray[i] = requestOf.get(i);
        }
        agg.supplyMaps(requestArray, n, entryImages.bytes(), entryImages.offsets());
        int before = lookups.keys.length;
        lookups.keys = Arrays.copyOf(lookups.keys, before + n);
        lookups.maps = Arrays.copyOf(lookups.maps, before + n);
        lookups.distinctKeys = Arrays.copyOf(lookups.distinctKeys, before + n);
        lookups.values = Arrays.copyOf(lookups.values, before + n);
        lookups.present = Arrays.copyOf(lookups.present, before + n);
        for (int i = 0; i < n; i++) {
            int q = requestArray[i];
            lookups.keys[before + i] = requestKeys[q];
            lookups.maps[before + i] = requestMaps[q];
            lookups.distinctKeys[before + i] = entryKeys.get(i);
            lookups.values[before + i] = counts.get(i);
            lookups.present[before + i] = 1;
        }
    }

    /** A batch's order-map entries, as the native aggregation lists them. */
    private static final class OrderEntries {
        byte[] kinds;
        int[] keys;
        int[] maps;
        long[] orders;
        int[] lengths;
        long[] longs;
        byte[] images;
        int[] imageOffsets;
    }

    private OrderEntries copyOrderEntries() {
        agg.orderSizes(orderSizes);
        int n = orderSizes[0];
        OrderEntries e = new OrderEntries();
        e.kinds = new byte[n];
        e.keys = new int[n];
        e.maps = new int[n];
        e.orders = new long[n];
        e.lengths = new int[n];
        e.longs = new long[orderSizes[1]];
        e.images = new byte[orderSizes[3]];
        e.imageOffsets = new int[orderSizes[2] + 1];
        agg.copyOrderEntries(
                e.kinds, e.keys, e.maps, e.orders, e.lengths, e.longs, e.images, e.imageOffsets);
        return e;
    }

    /**
     * FIRST/LAST_VALUE over retracting input: reads the order-map entries the batch asked for (one
     * valueToOrderMap or orderToValueMap entry, or every entry of a key's orderToValueMap) and
     * hands them to the native aggregation.
     */
    @SuppressWarnings("unchecked")
    private void supplyOrderEntries(BinaryRowData[] keys) throws Exception {
        OrderEntries requests = copyOrderEntries();
        int n = requests.keys.length;
        if (n == 0) {
            return;
        }
        MemorySegment requestImages = MemorySegmentFactory.wrap(requests.images);
        OrderReads reads = new OrderReads();
        for (int q = 0; q < n; q++) {
            int m = requests.maps[q];
            setCurrentKey(keys[requests.keys[q]]);
            if (requests.kinds[q] == 1) {
                Iterable<Map.Entry<Object, Object>> entries = distinctMaps[m].entries();
                if (entries != null) {
                    for (Map.Entry<Object, Object> entry : entries) {
                        reads.add(q, (Long) entry.getKey(), (List<Object>) entry.getValue(), m);
                    }
                }
            } else if (distincts[m].kind == DistinctState.VALUE_ORDERS) {
                // Every request has one value image (empty but for valueToOrderMap entries).
                Object value = valueCodecs[m].read(requestImages, requests.imageOffsets, q);
                List<Long> stored = (List<Long>) distinctMaps[m].get(value);
                if (stored != null) {
                    reads.add(q, 0L, stored.size());
                    reads.longs.addAll(stored);
                }
            } else {
                long order = requests.orders[q];
                List<Object> stored = (List<Object>) distinctMaps[m].get(order);
                if (stored != null) {
                    reads.add(q, order, stored, m);
                }
            }
        }
        int count = reads.requestOf.size();
        int[] requestArray = new int[count];
        long[] orderArray = new long[count];
        int[] lengthArray = new int[count];
        for (int i = 0; i < count; i++) {
            requestArray[i] = reads.requestOf.get(i);
            orderArray[i] = reads.orders.get(i);
            lengthArray[i] = reads.lengths.get(i);
        }
        long[] longArray = new long[reads.longs.size()];
        for (int i = 0; i < longArray.length; i++) {
            longArray[i] = reads.longs.get(i);
        }
        agg.supplyOrderEntries(
                count,
                requestArray,
                orderArray,
                lengthArray,
                longArray,
                longArray.length,
                entryImages.bytes(),
                entryImages.offsets(),
                entryImages.count());
    }

    /**
     * The entries read for a batch's order-map requests: per entry its request, order and list
     * length; valueToOrderMap lists in {@link #longs}, orderToValueMap lists' values as images in
     * {@link #entryImages}.
     */
    private final class OrderReads {
        final List<Integer> requestOf = new ArrayList<>();
        final List<Long> orders = new ArrayList<>();
        final List<Integer> lengths = new ArrayList<>();
        final List<Long> longs = new ArrayList<>();

        OrderReads() {
            entryImages.clear();
        }

        void add(int request, long order, int length) {
            requestOf.add(request);
            orders.add(order);
            lengths.add(length);
        }

        /** An orderToValueMap entry of map {@code m}. */
        void add(int request, long order, List<Object> values, int m) throws IOException {
            add(request, order, values.size());
            for (Object value : values) {
                valueCodecs[m].write(value, entryImages);
            }
        }
    }

    /**
     * Applies a batch's order-map writes (after {@link #writeDistinctMaps} cleared the maps of
     * groups that emptied): each entry is put with its new list, or removed.
     */
    private void writeOrderMaps(BinaryRowData[] keys) throws Exception {
        OrderEntries writes = copyOrderEntries();
        MemorySegment images = MemorySegmentFactory.wrap(writes.images);
        int nextLong = 0;
        int nextImage = 0;
        for (int i = 0; i < writes.keys.length; i++) {
            int m = writes.maps[i];
            setCurrentKey(keys[writes.keys[i]]);
            int length = writes.lengths[i];
            if (distincts[m].kind == DistinctState.VALUE_ORDERS) {
                Object value = valueCodecs[m].read(images, writes.imageOffsets, nextImage++);
                if (length < 0) {
                    distinctMaps[m].remove(value);
                    continue;
                }
                List<Long> list = new ArrayList<>(length);
                for (int j = 0; j < length; j++) {
                    list.add(writes.longs[nextLong++]);
                }
                distinctMaps[m].put(value, list);
                continue;
            }
            if (length < 0) {
                distinctMaps[m].remove(writes.orders[i]);
                continue;
            }
            List<Object> list = new ArrayList<>(length);
            for (int j = 0; j < length; j++) {
                list.add(valueCodecs[m].read(images, writes.imageOffsets, nextImage++));
            }
            distinctMaps[m].put(writes.orders[i], list);
        }
    }

    private Lookups readDistinctMaps(BinaryRowData[] keys) throws Exception {
        agg.lookupSizes(lookupSizes);
        int n = lookupSizes[0];
        Lookups lookups = new Lookups();
        lookups.keys = new int[n];
        lookups.maps = new int[n];
        byte[] images = new byte[lookupSizes[1]];
        int[] offsets = new int[n + 1];
        agg.copyLookups(lookups.keys, lookups.maps, images, offsets);
        lookups.distinctKeys = new Object[n];
        lookups.values = new long[n];
        lookups.present = new byte[n];
        MemorySegment segment = MemorySegmentFactory.wrap(images);
        BinaryRowData image = new BinaryRowData(1);
        for (int p = 0; p < n; ) {
            int m = lookups.maps[p];
            image.pointTo(segment, offsets[p], offsets[p + 1] - offsets[p]);
            Object internal = distinctGetters[m].getFieldOrNull(image);
            Object key = internal == null ? null : distinctConverters[m].toExternal(internal);
            setCurrentKey(keys[lookups.keys[p]]);
            Object value = key == null ? distinctNulls[m].value() : distinctMaps[m].get(key);
            // A long[] map's entry is read once for its lanes' consecutive lookups.
            int lanes = distincts[m].lanes;
            for (int lane = 0; lane < lanes; lane++, p++) {
                lookups.distinctKeys[p] = key;
                if (value != null) {
                    lookups.values[p] = lanes == 1 ? (Long) value : ((long[]) value)[lane];
                    lookups.present[p] = 1;
                }
            }
        }
        return lookups;
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            if (agg != null) {
                agg.close();
            }
        }
    }
}
