package io.streamfusion.planner.convert;

import io.streamfusion.plan.AggregateCall.Kind;
import io.streamfusion.plan.DistinctAggregate;
import io.streamfusion.plan.GroupAggregateNode;
import io.streamfusion.plan.GroupAggregateNode.Mode;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.SessionOptions;
import io.streamfusion.planner.nodes.NativeExecNode;
import io.streamfusion.planner.nodes.StreamExecNativeGroupAggregate;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.config.StreamFusionOptions.GroupState;
import io.streamfusion.runtime.state.DistinctState;

import org.apache.calcite.rel.core.AggregateCall;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.UserDefinedFunction;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.functions.aggfunctions.AvgAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.Count1AggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.CountAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.MaxAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.MinAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.Sum0AggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.SumAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.SumWithRetractAggFunction;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.StateMetadata;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecExchange;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGlobalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecIncrementalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLocalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLocalWindowAggregate;
import org.apache.flink.table.planner.plan.utils.AggregateInfo;
import org.apache.flink.table.planner.plan.utils.AggregateInfoList;
import org.apache.flink.table.planner.plan.utils.AggregateUtil;
import org.apache.flink.table.planner.plan.utils.DistinctInfo;
import org.apache.flink.table.planner.plan.utils.MinibatchUtil;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;
import org.apache.flink.table.runtime.dataview.MapViewSpec;
import org.apache.flink.table.runtime.functions.aggregate.FirstValueAggFunction;
import org.apache.flink.table.runtime.functions.aggregate.FirstValueWithRetractAggFunction;
import org.apache.flink.table.runtime.functions.aggregate.LastValueAggFunction;
import org.apache.flink.table.runtime.functions.aggregate.LastValueWithRetractAggFunction;
import org.apache.flink.table.runtime.functions.aggregate.MaxWithRetractAggFunction;
import org.apache.flink.table.runtime.functions.aggregate.MinWithRetractAggFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Converts Flink's non-windowed GROUP BY nodes (StreamExecGroupAggregate with or without
 * mini-batch, StreamExecLocalGroupAggregate and StreamExecGlobalGroupAggregate) into native group
 * aggregations, or refuses with the reason.
 *
 * <p>The aggregate functions, their accumulator layout, the retraction variants and the record
 * counter are taken from Flink's own {@link AggregateInfoList}, built by the same call Flink's
 * translation makes, so the native plan describes exactly the functions Flink would run.
 */
public final class GroupAggregateConverter implements OperatorFamily {

    @Override
    public void register(ConverterRegistry registry) {
        registry.add(
                StreamExecGroupAggregate.class,
                (node, c) -> convert(node, c.config(), c.typeFactory(), c.session()));
        registry.add(
                StreamExecLocalGroupAggregate.class,
                (node, c) -> convertLocal(node, c.typeFactory(), c.session()));
        registry.add(
                StreamExecGlobalGroupAggregate.class,
                (node, c) -> convertGlobal(node, c.config(), c.typeFactory(), c.session()));
        registry.refuse(
                StreamExecIncrementalGroupAggregate.class,
                "IncrementalGroupAggregate (a split DISTINCT aggregation with mini-batch,"
                        + " table.optimizer.distinct-agg.split.enabled) is not native:"
                        + " it merges the partial DISTINCT maps under the partial key and"
                        + " regroups them by the final key within a bundle. The Local and"
                        + " Global aggregations around it can be; with"
                        + " table.optimizer.incremental-agg-enabled = false every"
                        + " aggregation of the split plan can be native");
    }

    /** StreamExecGroupAggregate, with mini-batch (one phase) or without. */
    static StreamExecNativeGroupAggregate convert(
            StreamExecGroupAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        boolean needRetraction = NodeFields.read(node, "needRetraction");
        List<StateMetadata> stateMetadataList = NodeFields.read(node, "stateMetadataList");
        boolean miniBatch = MinibatchUtil.isMiniBatchEnabled(config);
        if (miniBatch && needRetraction && stateTtl(config, stateMetadataList) > 0) {
            // MiniBatchGroupAggFunction in Flink 2.2.1 drops the rest of a bundle after a key
            // whose only rows are retractions without state, which TTL expiry produces
            // (FLINK-35661). Native code must not copy the data loss, nor differ from it.
            throw new UnsupportedNativeException(
                    "GroupAggregate with mini-batch, retracting input and state TTL is refused:"
                            + " Flink 2.2.1 loses rows there (FLINK-35661)");
        }
        AggregateInfoList infos =
                infoList(node, typeFactory, inputType, needRetraction, true, Optional.empty());
        if (AggregateUtil.isAsyncStateEnabled(config, infos)) {
            throw new UnsupportedNativeException(
                    "GroupAggregate with async state (table.exec.async-state.enabled) is not"
                            + " native yet");
        }
        GroupAggregateNode.Builder agg =
                GroupAggregateNode.newBuilder()
                        .setMode(miniBatch ? Mode.MINI_BATCH : Mode.GROUP_AGG)
                        .setGenerateUpdateBefore(NodeFields.read(node, "generateUpdateBefore"));
        return build(
                node,
                agg,
                infos,
                inputType,
                config,
                session,
                stateMetadataList,
                StreamExecGroupAggregate.GROUP_AGGREGATE_TRANSFORMATION,
                true);
    }

    /** StreamExecLocalGroupAggregate: the stateless first phase of mini-batch aggregation. */
    static StreamExecNativeGroupAggregate convertLocal(
            StreamExecLocalGroupAggregate node,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        boolean needRetraction = NodeFields.read(node, "needRetraction");
        AggregateInfoList infos =
                infoList(node, typeFactory, inputType, needRetraction, false, Optional.empty());
        return build(
                node,
                GroupAggregateNode.newBuilder().setMode(Mode.LOCAL),
                infos,
                inputType,
                null,
                session,
                null,
                StreamExecLocalGroupAggregate.LOCAL_GROUP_AGGREGATE_TRANSFORMATION,
                false);
    }

    /** StreamExecGlobalGroupAggregate: merges the local accumulators into keyed state. */
    static StreamExecNativeGroupAggregate convertGlobal(
            StreamExecGlobalGroupAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        RowType localInputType = NodeFields.read(node, "localAggInputRowType");
        boolean needRetraction = NodeFields.read(node, "needRetraction");
        Integer indexOfCountStar = NodeFields.read(node, "indexOfCountStar");
        AggregateInfoList infos =
                infoList(
                        node,
                        typeFactory,
                        localInputType,
                        needRetraction,
                        true,
                        Optional.ofNullable(indexOfCountStar));
        GroupAggregateNode.Builder agg =
                GroupAggregateNode.newBuilder()
                        .setMode(Mode.GLOBAL)
                        .setGenerateUpdateBefore(NodeFields.read(node, "generateUpdateBefore"))
                        .setLocalInputType(TypeConverter.toProto(localInputType));
        return build(
                node,
                agg,
                infos,
                (RowType) node.getInputEdges().get(0).getOutputType(),
                config,
                session,
                NodeFields.read(node, "stateMetadataList"),
                StreamExecGlobalGroupAggregate.GLOBAL_GROUP_AGGREGATE_TRANSFORMATION,
                true);
    }

    /** Flink's AggregateInfoList for the node's calls, built as its translation builds it. */
    private static AggregateInfoList infoList(
            ExecNodeBase<?> node,
            FlinkTypeFactory typeFactory,
            RowType aggregatedType,
            boolean needRetraction,
            boolean stateBackedDataViews,
            Optional<Integer> indexOfCountStar)
            throws UnsupportedNativeException {
        AggregateCall[] aggCalls = NodeFields.read(node, "aggCalls");
        boolean[] aggCallNeedRetractions = NodeFields.read(node, "aggCallNeedRetractions");
        // Scala's Option[Int] is Option<Object> to Java.
        @SuppressWarnings({"unchecked", "rawtypes"})
        scala.Option<Object> countStar =
                (scala.Option) JavaScalaConversionUtil.toScala(indexOfCountStar);
        AggregateInfoList infos =
                AggregateUtil.transformToStreamAggregateInfoList(
                        typeFactory,
                        aggregatedType,
                        JavaScalaConversionUtil.toScala(Arrays.asList(aggCalls)),
                        aggCallNeedRetractions,
                        needRetraction,
                        countStar,
                        stateBackedDataViews,
                        true);
        checkDistincts(node, infos, stateBackedDataViews);
        return infos;
    }

    /**
     * DISTINCT over one argument only, its map state-backed unless the node is a Local one (which
     * keeps its maps on the heap and sends them on as RAW views).
     */
    static void checkDistincts(
            ExecNodeBase<?> node, AggregateInfoList infos, boolean stateBackedDataViews)
            throws UnsupportedNativeException {
        String name = node.getClass().getSimpleName().replace("StreamExec", "");
        for (DistinctInfo distinct : infos.distinctInfos()) {
            if (distinct.argIndexes().length != 1) {
                throw new UnsupportedNativeException(
                        name + " with DISTINCT over several arguments is not native yet");
            }
            if (stateBackedDataViews && distinct.dataViewSpec().isEmpty()) {
                throw new UnsupportedNativeException(name + ": DISTINCT map without a state view");
            }
        }
    }

    private static long stateTtl(TableConfig config, List<StateMetadata> stateMetadataList) {
        return StateMetadata.getStateTtlForOneInputOperator(
                ExecNodeConfig.ofTableConfig(config, false), stateMetadataList);
    }

    /**
     * The DISTINCT maps of {@code infos}: their protos, their state-backed maps (none for heap
     * views) and their accumulator fields (RAW: a placeholder for a state-backed map, LOCAL's heap
     * view otherwise), after the calls' fields as in Flink's accumulator row.
     */
    static void addDistincts(
            AggregateInfoList infos,
            GroupAggregateNode.Builder agg,
            List<LogicalType> accTypes,
            List<DistinctState> distincts) {
        for (DistinctInfo distinct : infos.distinctInfos()) {
            DistinctAggregate.Builder proto =
                    DistinctAggregate.newBuilder()
                            .setArg(distinct.argIndexes()[0])
                            .setConsumeRetraction(distinct.consumeRetraction());
            for (int i = 0; i < distinct.aggIndexes().size(); i++) {
                proto.addCalls((Integer) distinct.aggIndexes().apply(i));
                proto.addFilterArgs((Integer) distinct.filterArgs().apply(i));
            }
            agg.addDistincts(proto);
            if (distinct.dataViewSpec().isDefined()) {
                MapViewSpec spec = distinct.dataViewSpec().get();
                distincts.add(
                        new DistinctState(
                                spec.getStateId(),
                                spec.getKeyDataType(),
                                spec.getValueDataType(),
                                spec.containsNullKey(),
                                // over retracting input, several calls count in a long[]
                                distinct.consumeRetraction() ? distinct.aggIndexes().size() : 1));
            }
            accTypes.add(distinct.accType().getLogicalType());
        }
    }

    private static StreamExecNativeGroupAggregate build(
            ExecNodeBase<RowData> node,
            GroupAggregateNode.Builder agg,
            AggregateInfoList infos,
            RowType inputType,
            TableConfig config,
            SessionOptions session,
            List<StateMetadata> stateMetadataList,
            String transformationName,
            boolean keyed)
            throws UnsupportedNativeException {
        String stateNote = null;
        if (keyed) {
            GroupState option = config.get(StreamFusionOptions.GROUP_STATE);
            boolean ttl = stateTtl(config, stateMetadataList) > 0;
            String backend = config.get(StateBackendOptions.STATE_BACKEND);
            boolean rocksDb = "rocksdb".equalsIgnoreCase(backend);
            boolean wanted = option == GroupState.STORE || (option == GroupState.AUTO && rocksDb);
            boolean inStore = wanted && !ttl;
            agg.setStateInStore(inStore);
            String why =
                    wanted && ttl
                            ? "state TTL keeps Flink state"
                            : option != GroupState.AUTO
                                    ? "streamfusion.group.state=" + option
                                    : rocksDb
                                            ? "AUTO with RocksDB: measured faster than RocksDB"
                                                    + " through the port"
                                            : "AUTO with the " + backend + " backend";
            stateNote =
                    inStore
                            ? "group state: a native store on disk, by key group ("
                                    + why
                                    + "; checkpoints: raw keyed state; savepoints: Flink's"
                                    + " layout)"
                            : "group state: Flink keyed state through the state port (" + why + ")";
        }
        int[] grouping = NodeFields.read(node, "grouping");
        for (int key : grouping) {
            agg.addGrouping(key);
        }
        List<LogicalType> accTypes = new ArrayList<>();
        List<DistinctState> callMaps = new ArrayList<>();
        addCalls(node, agg, infos, accTypes, callMaps);
        List<DistinctState> distincts = new ArrayList<>();
        addDistincts(infos, agg, accTypes, distincts);
        // The calls' own maps (MIN/MAX over retracting input) follow the DISTINCT maps.
        distincts.addAll(callMaps);

        byte[] bytes =
                NativePlans.compileFor(
                        node, inputType, Operator.newBuilder().setGroupAggregate(agg), session);
        return new StreamExecNativeGroupAggregate(
                node,
                bytes,
                inputType,
                grouping,
                accTypes.toArray(new LogicalType[0]),
                distincts.toArray(new DistinctState[0]),
                stateMetadataList,
                transformationName,
                keyed,
                stateNote);
    }

    /**
     * Adds the calls of {@code infos} (Flink's functions, accumulator layout and hidden COUNT(*))
     * to {@code agg} and their accumulator types to {@code accTypes}; refuses functions without a
     * native kernel. Window aggregations keep no call maps.
     */
    static void addCalls(
            ExecNodeBase<?> node,
            GroupAggregateNode.Builder agg,
            AggregateInfoList infos,
            List<LogicalType> accTypes)
            throws UnsupportedNativeException {
        addCalls(node, agg, infos, accTypes, null);
    }

    /**
     * As above; the state-backed maps of MIN/MAX over retracting input go to {@code callMaps} in
     * call order, followed by the two maps of each FIRST_VALUE/LAST_VALUE over retracting input
     * (refused when null).
     */
    static void addCalls(
            ExecNodeBase<?> node,
            GroupAggregateNode.Builder agg,
            AggregateInfoList infos,
            List<LogicalType> accTypes,
            List<DistinctState> callMaps)
            throws UnsupportedNativeException {
        int countStar =
                infos.indexOfCountStar().isDefined()
                        ? (Integer) infos.indexOfCountStar().get()
                        : -1;
        AggregateInfo[] aggInfos = infos.aggInfos();
        List<DistinctState> orderMaps = new ArrayList<>();
        for (int i = 0; i < aggInfos.length; i++) {
            AggregateInfo info = aggInfos[i];
            AggregateCall call = info.agg();
            io.streamfusion.plan.AggregateCall.Builder proto =
                    io.streamfusion.plan.AggregateCall.newBuilder()
                            .setKind(kindOf(info.function(), call))
                            .setFilterArg(call.filterArg)
                            .setResultType(
                                    TypeConverter.toProto(
                                            info.externalResultType().getLogicalType()))
                            .setHidden(i == countStar && infos.countStarInserted());
            for (int arg : info.argIndexes()) {
                proto.addArgs(arg);
            }
            checkStringOrdering(node, proto.getKind(), info);
            if (proto.getKind() == Kind.MIN_WITH_RETRACT
                    || proto.getKind() == Kind.MAX_WITH_RETRACT) {
                addRetractableExtreme(node, info, proto, accTypes, callMaps);
                agg.addCalls(proto);
                continue;
            }
            if (proto.getKind() == Kind.FIRST_VALUE_WITH_RETRACT
                    || proto.getKind() == Kind.LAST_VALUE_WITH_RETRACT) {
                addRetractableFirstLast(info, proto, accTypes, callMaps == null ? null : orderMaps);
                agg.addCalls(proto);
                continue;
            }
            for (DataType acc : info.externalAccTypes()) {
                proto.addAccTypes(TypeConverter.toProto(acc.getLogicalType()));
                accTypes.add(acc.getLogicalType());
            }
            if (info.viewSpecs().length > 0) {
                throw new UnsupportedNativeException(
                        call.getAggregation().getName() + " keeps a state-backed view");
            }
            agg.addCalls(proto);
        }
        if (callMaps != null) {
            callMaps.addAll(orderMaps);
        }
        agg.setCountStarCall(countStar);
    }

    /**
     * MIN/MAX of strings compare as Flink's BinaryStringData.compareTo, which uses UTF-8 byte order
     * unless both strings are held as Java objects (then UTF-16 order). Rows that come through an
     * exchange (deserialized) or from a native operator hold bytes, as do accumulators from state;
     * a chained Flink operator may hand over Java-held strings.
     */
    private static void checkStringOrdering(ExecNodeBase<?> node, Kind kind, AggregateInfo info)
            throws UnsupportedNativeException {
        if (kind != Kind.MIN
                && kind != Kind.MAX
                && kind != Kind.MIN_WITH_RETRACT
                && kind != Kind.MAX_WITH_RETRACT) {
            return;
        }
        LogicalTypeRoot root = info.externalResultType().getLogicalType().getTypeRoot();
        if (root != LogicalTypeRoot.CHAR && root != LogicalTypeRoot.VARCHAR) {
            return;
        }
        ExecNode<?> input = node.getInputEdges().get(0).getSource();
        if (!(input instanceof StreamExecExchange || input instanceof NativeExecNode)) {
            throw new UnsupportedNativeException(
                    kind
                            + " of a string whose input is a chained Flink operator is not native:"
                            + " Flink may compare Java-held strings in UTF-16 order");
        }
    }

    /**
     * MIN/MAX over retracting input (Min/MaxWithRetractAggFunction): the accumulator is Flink's
     * STRUCTURED (min/max, mapSize, map) whose map is a state-backed MapView value -> count; the
     * native side reads the STRUCTURED field as ROW(value, mapSize BIGINT, map placeholder) and the
     * map as one of the aggregation's MapStates, declared as Flink's generated code declares it.
     */
    private static void addRetractableExtreme(
            ExecNodeBase<?> node,
            AggregateInfo info,
            io.streamfusion.plan.AggregateCall.Builder proto,
            List<LogicalType> accTypes,
            List<DistinctState> callMaps)
            throws UnsupportedNativeException {
        String name = proto.getKind() == Kind.MIN_WITH_RETRACT ? "MIN" : "MAX";
        if (callMaps == null) {
            throw new UnsupportedNativeException(
                    name
                            + " over retracting input in a legacy group window"
                            + " aggregation is not native yet");
        }
        // The local phases keep the map on the heap and send it on in the accumulator.
        boolean local =
                node instanceof StreamExecLocalGroupAggregate
                        || node instanceof StreamExecLocalWindowAggregate;
        DataType[] accs = info.externalAccTypes();
        if (accs.length != 1
                || info.viewSpecs().length != (local ? 0 : 1)
                || (!local && !(info.viewSpecs()[0] instanceof MapViewSpec))) {
            throw new UnsupportedNativeException(
                    name + " over retracting input with an unexpected accumulator " + accs[0]);
        }
        addViewAccumulator(name, accs[0], 1, proto, accTypes);
        if (local) {
            return;
        }
        MapViewSpec spec = (MapViewSpec) info.viewSpecs()[0];
        callMaps.add(
                new DistinctState(
                        spec.getStateId(),
                        spec.getKeyDataType(),
                        spec.getValueDataType(),
                        spec.containsNullKey(),
                        1));
    }

    /**
     * FIRST_VALUE/LAST_VALUE over retracting input (First/LastValueWithRetractAggFunction): the
     * accumulator is Flink's STRUCTURED (value, order, valueToOrderMap, orderToValueMap) whose maps
     * are state-backed MapViews value -> List&lt;Long&gt; and Long -> List&lt;value&gt;; the native
     * side reads it as ROW(value, order BIGINT, placeholder, placeholder) and the maps as two of
     * the aggregation's MapStates (added to {@code orderMaps}), declared as Flink's generated code
     * declares them.
     */
    private static void addRetractableFirstLast(
            AggregateInfo info,
            io.streamfusion.plan.AggregateCall.Builder proto,
            List<LogicalType> accTypes,
            List<DistinctState> orderMaps)
            throws UnsupportedNativeException {
        String name =
                proto.getKind() == Kind.FIRST_VALUE_WITH_RETRACT ? "FIRST_VALUE" : "LAST_VALUE";
        if (orderMaps == null) {
            throw new UnsupportedNativeException(
                    name + " over retracting input in a window aggregation is not native yet");
        }
        DataType[] accs = info.externalAccTypes();
        if (accs.length != 1
                || info.viewSpecs().length != 2
                || !(info.viewSpecs()[0] instanceof MapViewSpec)
                || !(info.viewSpecs()[1] instanceof MapViewSpec)) {
            throw new UnsupportedNativeException(
                    name + " over retracting input with an unexpected accumulator " + accs[0]);
        }
        addViewAccumulator(name, accs[0], 2, proto, accTypes);
        for (int v = 0; v < 2; v++) {
            MapViewSpec spec = (MapViewSpec) info.viewSpecs()[v];
            orderMaps.add(
                    DistinctState.orderMap(
                            spec.getStateId(),
                            spec.getKeyDataType(),
                            spec.getValueDataType(),
                            v == 0 ? DistinctState.VALUE_ORDERS : DistinctState.ORDER_VALUES));
        }
    }

    /**
     * The STRUCTURED accumulator {@code acc} of a function over retracting input with {@code views}
     * state-backed MapViews after a value and a BIGINT (MIN/MAX: mapSize; FIRST/LAST_VALUE: the
     * order): the native side reads it as ROW(value, BIGINT, one placeholder per view), the
     * placeholders' bytes as a VARBINARY (nothing reads them).
     */
    private static void addViewAccumulator(
            String name,
            DataType acc,
            int views,
            io.streamfusion.plan.AggregateCall.Builder proto,
            List<LogicalType> accTypes)
            throws UnsupportedNativeException {
        List<LogicalType> fields = acc.getLogicalType().getChildren();
        List<String> names = LogicalTypeChecks.getFieldNames(acc.getLogicalType());
        if (fields.size() != 2 + views || names.size() != 2 + views) {
            throw new UnsupportedNativeException(
                    name + " over retracting input with an unexpected accumulator " + acc);
        }
        io.streamfusion.plan.DataType placeholder =
                io.streamfusion.plan.DataType.newBuilder()
                        .setKind(io.streamfusion.plan.DataType.Kind.VARBINARY)
                        .setNullable(true)
                        .setLength(VarBinaryType.MAX_LENGTH)
                        .build();
        io.streamfusion.plan.DataType.Builder row =
                io.streamfusion.plan.DataType.newBuilder()
                        .setKind(io.streamfusion.plan.DataType.Kind.ROW)
                        .setNullable(true)
                        .addFields(field(names.get(0), TypeConverter.toProto(fields.get(0))))
                        .addFields(field(names.get(1), TypeConverter.toProto(fields.get(1))));
        for (int v = 0; v < views; v++) {
            row.addFields(field(names.get(2 + v), placeholder));
        }
        proto.addAccTypes(row);
        accTypes.add(acc.getLogicalType());
    }

    private static io.streamfusion.plan.Field field(
            String name, io.streamfusion.plan.DataType type) {
        return io.streamfusion.plan.Field.newBuilder().setName(name).setType(type).build();
    }

    /** The native kernel of one of Flink's aggregate function classes. */
    private static Kind kindOf(UserDefinedFunction function, AggregateCall call)
            throws UnsupportedNativeException {
        if (function instanceof Count1AggFunction) {
            return Kind.COUNT1;
        }
        if (function instanceof CountAggFunction) {
            return Kind.COUNT;
        }
        if (function instanceof SumWithRetractAggFunction) {
            return Kind.SUM_WITH_RETRACT;
        }
        if (function instanceof Sum0AggFunction) {
            return Kind.SUM0;
        }
        if (function instanceof SumAggFunction) {
            return Kind.SUM;
        }
        if (function instanceof AvgAggFunction) {
            return Kind.AVG;
        }
        if (function instanceof MinAggFunction) {
            return Kind.MIN;
        }
        if (function instanceof MaxAggFunction) {
            return Kind.MAX;
        }
        if (function instanceof MinWithRetractAggFunction) {
            return Kind.MIN_WITH_RETRACT;
        }
        if (function instanceof MaxWithRetractAggFunction) {
            return Kind.MAX_WITH_RETRACT;
        }
        if (function instanceof FirstValueAggFunction) {
            return Kind.FIRST_VALUE;
        }
        if (function instanceof LastValueAggFunction) {
            return Kind.LAST_VALUE;
        }
        if (function instanceof FirstValueWithRetractAggFunction) {
            return Kind.FIRST_VALUE_WITH_RETRACT;
        }
        if (function instanceof LastValueWithRetractAggFunction) {
            return Kind.LAST_VALUE_WITH_RETRACT;
        }
        throw new UnsupportedNativeException(
                call.getAggregation().getName()
                        + " ("
                        + function.getClass().getSimpleName()
                        + ") has no native kernel yet");
    }
}
