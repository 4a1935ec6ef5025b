package io.streamfusion.runtime.aggregate;

import io.streamfusion.plan.GroupAggregateNode;
import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.island.NativeBatchOperator;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.jni.CallResult;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.metrics.MemoryGauges;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.runtime.state.DistinctState;
import io.streamfusion.runtime.state.KeyedStatePort;
import io.streamfusion.runtime.state.PortStoreState;
import io.streamfusion.runtime.state.StateCodec;
import io.streamfusion.runtime.transpose.FieldUse;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.runtime.typeutils.ExternalSerializer;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.util.StateConfigUtil;
import org.apache.flink.table.types.CollectionDataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The operator shell of a native non-windowed group aggregation, computing natively over
 * accumulators kept in Flink keyed state: Flink's StreamExecGroupAggregate without mini-batch (one
 * batch = some rows) or with it, and the Local/Global pair (one batch = one mini-batch bundle,
 * ended where Flink's bundle trigger ends it: at the mini-batch size, a watermark, a checkpoint
 * barrier or the end of input). The Local form keeps no state and is not keyed.
 *
 * <p>The aggregation runs as a native island (the operator contract), alone or with the native Calc
 * that feeds its LOCAL phase or that it alone feeds, and reaches its state through the state port:
 * the shell declares the states exactly as Flink's GroupAggFunction and its generated aggregation
 * declare them, and a {@link KeyedStatePort} serves the native operator's reads and writes. State 0
 * is the {@code ValueState<RowData>} "accState" of the accumulator types; for each state-backed map
 * m (DISTINCT maps, MIN/MAX maps over retraction, FIRST/LAST_VALUE order maps, in {@link
 * DistinctState}'s order) state 1 + 2m is the MapState and 2 + 2m the ValueState of its NULL key.
 * Checkpoints, RocksDB, state TTL and rescaling work as for the stock operator, and savepoints move
 * between the two.
 *
 * <p>With {@code streamfusion.group.state=STORE} (GroupAggregateNode.state_in_store) the same
 * states live in a native store on disk instead, which serves the port inside the island
 * (state/port_store.h): no JVM round per batch. Checkpoints then write the store's key groups into
 * Flink's raw keyed state ({@link PortStoreState}); a savepoint writes the store's content into the
 * declared Flink states before its synchronous part and removes it after, so it holds Flink's
 * layout, and a restore moves state found in that layout into the store.
 *
 * <p>A batch costs a few native calls and one state read and at most one state write per distinct
 * key and touched map entry: native code finds the distinct keys (as the BinaryRowData images
 * Flink's key selector builds), reads what it needs through the port, replays the rows in input
 * order with Flink's rules, and hands back its writes and the changelog in Flink's order. Flink's
 * per-record key extraction is skipped ({@link #hasKeyContext1}); the port sets each key itself.
 */
public class NativeGroupAggregateOperator extends NativeBatchOperator {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(NativeGroupAggregateOperator.class);

    private final byte[] plan;
    private final int keyArity;
    private final LogicalType[] accTypes;
    private final DistinctState[] distincts;
    private final int outputArity;
    private final long stateRetentionTime;
    private final long memoryBudgetBytes;

    private transient GroupAggregateNode.Mode mode;

    /** LOCAL behind a Calc: the native operator ends bundles itself and keeps rows between. */
    private transient boolean keepsBundles;

    private transient StateTtlConfig ttl;
    private transient NativePipeline pipeline;
    private transient KeyedStatePort port;

    /** The aggregation's state is in the native store (see the class comment). */
    private final boolean stateInStore;

    public NativeGroupAggregateOperator(ShellSpec spec, long stateRetentionTime) {
        super(spec, spec.maxDelayMillis);
        this.plan = spec.plan;
        this.keyArity = spec.keyArity;
        this.accTypes = spec.accTypes;
        this.distincts = spec.distincts;
        this.outputArity = spec.outputArity;
        this.stateRetentionTime = stateRetentionTime;
        this.memoryBudgetBytes = spec.memoryBudgetBytes;
        this.stateInStore = stateInStore(plan);
    }

    private static boolean stateInStore(byte[] plan) {
        try {
            return Plans.parse(plan).getOperatorsList().stream()
                    .anyMatch(
                            op ->
                                    op.hasGroupAggregate()
                                            && op.getGroupAggregate().getStateInStore());
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("The island's plan does not parse", e);
        }
    }

    @Override
    protected String portStoreState() {
        return stateInStore ? "Native group aggregation state" : null;
    }

    @Override
    public void open() throws Exception {
        super.open();
        Plan parsed = Plans.parse(plan);
        // The island's group aggregation (a Calc may come before or after it).
        GroupAggregateNode node =
                parsed.getOperatorsList().stream()
                        .filter(op -> op.hasGroupAggregate())
                        .findFirst()
                        .orElseThrow()
                        .getGroupAggregate();
        mode = node.getMode();
        keepsBundles = node.getBundleRows() > 0;
        if (mode != GroupAggregateNode.Mode.LOCAL) {
            ttl = StateConfigUtil.createTtlConfig(stateRetentionTime);
            port = new KeyedStatePort(keyArity, this::setCurrentKey);
            declareStates();
        }
        byte[] runPlan = stateInStore ? withPortStore(parsed) : plan;
        pipeline = openPipeline(runPlan, run -> new NativePipeline(run, memoryBudgetBytes));
        if (stateInStore) {
            // State in Flink's layout (a savepoint) moves into the store.
            int moved = portStore.restore(pipeline, port, getKeyedStateBackend());
            if (moved > 0) {
                LOG.info(
                        "Moved the state of {} keys from Flink state into the native store", moved);
            }
        }
        openBatches(FieldUse.of(parsed), outputArity);
        MemoryGauges.register(
                getMetricGroup(), () -> pipeline == null ? 0L : pipeline.memoryBytes());
    }

    /** The island's plan with the port store of its states (Plan.port_store). */
    private byte[] withPortStore(Plan parsed) {
        java.nio.file.Path directory = nativeStoreDirectory("group");
        LOG.info("Native group aggregation state in the native store at {}", directory);
        return portStore.withPortStore(
                parsed,
                directory,
                memoryBudgetBytes / 4,
                getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks(),
                port,
                List.of());
    }

    /** The states, declared as Flink's function and generated aggregation declare them. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void declareStates() {
        ValueState<?> accState =
                getRuntimeContext()
                        .getState(
                                withTtl(
                                        new ValueStateDescriptor<>(
                                                "accState", InternalTypeInfo.ofFields(accTypes))));
        port.declareValue(0, "accState", accState, StateCodec.row(accTypes));
        ClassLoader loader = getRuntimeContext().getUserCodeClassLoader();
        for (int m = 0; m < distincts.length; m++) {
            DistinctState d = distincts[m];
            MapState<?, ?> map =
                    getRuntimeContext()
                            .getMapState(
                                    withTtl(
                                            new MapStateDescriptor<>(
                                                    d.stateId,
                                                    (TypeSerializer)
                                                            ExternalSerializer.of(d.keyType),
                                                    (TypeSerializer)
                                                            ExternalSerializer.of(d.valueType))));
            StateCodec counts = d.lanes == 1 ? StateCodec.longValue() : StateCodec.longArray();
            if (d.kind == DistinctState.VALUE_ORDERS) {
                port.declareMap(
                        1 + 2 * m,
                        d.stateId,
                        map,
                        StateCodec.sqlValue(d.keyType, loader),
                        StateCodec.longList());
            } else if (d.kind == DistinctState.ORDER_VALUES) {
                port.declareMap(
                        1 + 2 * m,
                        d.stateId,
                        map,
                        StateCodec.longValue(),
                        StateCodec.sqlValueList(
                                ((CollectionDataType) d.valueType).getElementDataType(), loader));
            } else {
                port.declareMap(
                        1 + 2 * m, d.stateId, map, StateCodec.sqlValue(d.keyType, loader), counts);
            }
            String nullName = d.stateId + DistinctState.NULL_STATE_POSTFIX;
            if (!d.nullKey) {
                port.declareAbsent(2 + 2 * m, nullName);
                continue;
            }
            ValueState<?> nullState =
                    getRuntimeContext()
                            .getState(
                                    withTtl(
                                            new ValueStateDescriptor<>(
                                                    nullName,
                                                    (TypeSerializer)
                                                            ExternalSerializer.of(d.valueType))));
            port.declareValue(2 + 2 * m, nullName, nullState, counts);
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
        long result = pipeline.processRows(batch.bytes(), batch.offsets(), rows);
        if (stateInStore) {
            NativeMetrics.addNativeStateRows(rows);
        }
        if (CallResult.statePending(result)) {
            if (port == null) {
                throw new IllegalStateException("A stateless aggregation asked for state");
            }
            result = pipeline.serveState(port);
        }
        // GroupAggFunction's output keeps its input record's timestamp; a bundle's has none.
        finishBatch(emitOutput(pipeline, result, mode == GroupAggregateNode.Mode.GROUP_AGG));
    }

    /**
     * LOCAL behind a Calc: the bundle the native operator keeps ends where Flink's does besides its
     * count (a watermark, a checkpoint barrier, the end of input).
     */
    @Override
    protected void flushBuffers() throws Exception {
        if (keepsBundles) {
            emitFlushed(pipeline);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            if (pipeline != null) {
                pipeline.close();
                pipeline = null;
            }
        }
    }
}
