package io.streamfusion.planner;

import io.streamfusion.planner.convert.ConversionContext;
import io.streamfusion.planner.convert.ConverterRegistry;
import io.streamfusion.planner.convert.NativePlans;
import io.streamfusion.planner.convert.UnsupportedNativeException;
import io.streamfusion.planner.nodes.IslandOptions;
import io.streamfusion.planner.nodes.IslandRole;
import io.streamfusion.planner.nodes.NativeExecNode;
import io.streamfusion.planner.nodes.NativeExecNodeBase;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.metrics.Evidence;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.common.CommonExecSink;
import org.apache.flink.table.planner.plan.nodes.exec.common.CommonExecTableSourceScan;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ProcessorContext;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecDataStreamScan;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecExchange;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLegacySink;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLegacyTableSourceScan;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecMiniBatchAssigner;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecValues;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides per ExecNode whether it can run natively and rewrites the graph: each supported node is
 * replaced by its native counterpart, every other keeps its Flink implementation with a recorded
 * reason (per-operator fallback). Runs on every translation and EXPLAIN; is suspended while a plan
 * is compiled so that COMPILE PLAN output stays stock Flink JSON.
 */
public final class NativeIslandProcessor implements ExecNodeGraphProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(NativeIslandProcessor.class);
    private static final Set<String> LOGGED_REASONS = ConcurrentHashMap.newKeySet();

    private final ThreadLocal<Boolean> suspended = ThreadLocal.withInitial(() -> false);
    private final ThreadLocal<Boolean> explaining = ThreadLocal.withInitial(() -> false);
    private volatile SupportReport lastReport = new SupportReport();

    @Override
    public ExecNodeGraph process(ExecNodeGraph graph, ProcessorContext context) {
        TableConfig config = context.getPlanner().getTableConfig();
        if (suspended.get() || !config.get(StreamFusionOptions.ENABLED)) {
            lastReport = new SupportReport();
            return graph;
        }
        validateOptions(config);
        Rewrite rewrite =
                new Rewrite(config, ((PlannerBase) context.getPlanner()).getTypeFactory());
        List<ExecNode<?>> roots = new ArrayList<>();
        for (ExecNode<?> root : graph.getRootNodes()) {
            roots.add(rewrite.visit(root));
        }
        lastReport = rewrite.report;
        markSoleConsumers(roots);
        formIslands(roots, rewrite.report, config.get(StreamFusionOptions.ISLANDS));
        if (config.get(StreamFusionOptions.BORROWED_STRING_EXIT)
                && rewrite.report.nativeCount() > 0) {
            rewrite.report.noteExit(
                    IslandOptions.borrowsExit(config)
                            ? "borrowed: rows leave every island in its native output memory"
                                    + " (object reuse is off, so Flink copies a row at a chained"
                                    + " edge and serializes it at a network edge before the"
                                    + " island's next batch)"
                            : "copied: the borrowed exit is refused because pipeline.object-reuse"
                                    + " is on, so a chained consumer may keep a row past its"
                                    + " batch");
        }
        if (!explaining.get()) {
            Evidence.planned(rewrite.report.nativeCount(), rewrite.report.totalCount());
        }
        if (config.get(StreamFusionOptions.FALLBACK) == StreamFusionOptions.FallbackMode.FORBID
                && !explaining.get()
                && rewrite.report.nativeCount() < rewrite.report.totalCount()) {
            throw new TableException(
                    "StreamFusion fallback is forbidden (streamfusion.fallback=forbid) but "
                            + rewrite.report.summary()
                            + ": "
                            + String.join("; ", rewrite.report.fallbackReasons()));
        }
        return new ExecNodeGraph(graph.getFlinkVersion(), roots);
    }

    /** Refuses unknown {@code streamfusion.*} keys and values out of range, naming them. */
    static void validateOptions(TableConfig config) {
        Set<String> keys = new TreeSet<>(config.getConfiguration().keySet());
        if (config.getRootConfiguration() instanceof Configuration) {
            keys.addAll(((Configuration) config.getRootConfiguration()).keySet());
        }
        try {
            StreamFusionOptions.validate(config, keys);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage());
        }
    }

    public SupportReport lastReport() {
        return lastReport;
    }

    void setSuspended(boolean value) {
        suspended.set(value);
    }

    void setExplaining(boolean value) {
        explaining.set(value);
    }

    /** One rewrite of one graph: visits every node once, inputs first. */
    private static final class Rewrite {
        private final TableConfig config;
        private final ConversionContext context;
        private final ConverterRegistry converters = ConverterRegistry.load();
        private final Map<ExecNode<?>, ExecNode<?>> visited = new IdentityHashMap<>();
        private final SupportReport report = new SupportReport();

        Rewrite(TableConfig config, FlinkTypeFactory typeFactory) {
            this.config = config;
            this.context = new ConversionContext(config, typeFactory);
        }

        ExecNode<?> visit(ExecNode<?> node) {
            ExecNode<?> done = visited.get(node);
            if (done != null) {
                return done;
            }
            List<ExecEdge> edges = node.getInputEdges();
            for (int i = 0; i < edges.size(); i++) {
                ExecEdge edge = edges.get(i);
                ExecNode<?> input = visit(edge.getSource());
                if (input != edge.getSource()) {
                    node.replaceInputEdge(
                            i,
                            ExecEdge.builder()
                                    .source(input)
                                    .target(node)
                                    .shuffle(edge.getShuffle())
                                    .exchangeMode(edge.getExchangeMode())
                                    .build());
                }
            }
            ExecNode<?> result = convert(node);
            visited.put(node, result);
            return result;
        }

        private ExecNode<?> convert(ExecNode<?> node) {
            if (!isCountedOperator(node)) {
                return node;
            }
            String name = node.getDescription();
            try {
                ExecNode<?> converted = tryConvert(node);
                NativeExecNode nativeNode = (NativeExecNode) converted;
                report.addNative(name, nativeNode.plan(), nativeNode.note());
                return converted;
            } catch (UnsupportedNativeException e) {
                report.addFallback(name, e.getMessage());
                if (LOGGED_REASONS.add(e.getMessage())) {
                    LOG.info("StreamFusion keeps a Flink operator: {}", e.getMessage());
                }
                return node;
            } catch (RuntimeException e) {
                // A converter's own failure (a type or expression it did not anticipate) must
                // never fail a query that Flink can run: the operator stays on Flink.
                String reason =
                        "StreamFusion could not convert this operator ("
                                + e.getClass().getName()
                                + (e.getMessage() == null ? "" : ": " + e.getMessage())
                                + ")";
                report.addFallback(name, reason);
                LOG.warn("StreamFusion keeps a Flink operator: {}", reason, e);
                return node;
            }
        }

        private ExecNode<?> tryConvert(ExecNode<?> node) throws UnsupportedNativeException {
            String kind = node.getClass().getSimpleName().replace("StreamExec", "");
            if (config.get(StreamFusionOptions.EXCLUDED_OPERATORS).contains(kind)) {
                throw new UnsupportedNativeException(
                        kind + " is excluded by streamfusion.operators.excluded");
            }
            return converters.convert(node, context);
        }
    }

    /** Every node reachable from {@code roots}, each with the number of its consumers. */
    private static Map<ExecNode<?>, Integer> consumers(List<ExecNode<?>> roots) {
        Map<ExecNode<?>, Integer> consumers = new IdentityHashMap<>();
        Set<ExecNode<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<ExecNode<?>> todo = new ArrayDeque<>(roots);
        while (!todo.isEmpty()) {
            ExecNode<?> node = todo.pop();
            if (!seen.add(node)) {
                continue;
            }
            consumers.putIfAbsent(node, 0);
            for (ExecEdge edge : node.getInputEdges()) {
                consumers.merge(edge.getSource(), 1, Integer::sum);
                todo.push(edge.getSource());
            }
        }
        return consumers;
    }

    /**
     * Joins native operators on forward edges into islands, each run by one shell as one pipeline
     * (rows are converted once at its entry and once at its exit, not at every operator), by the
     * nodes' {@link IslandRole}s alone: from each native node, the chain of its only consumers on
     * forward edges is cut into islands as the roles allow (see {@link #cut}). A watermark assigner
     * in no island stays Flink's, with the reason in the report. Each island is listed in the
     * report.
     */
    private static void formIslands(
            List<ExecNode<?>> roots, SupportReport report, boolean enabled) {
        Map<ExecNode<?>, Integer> consumers = consumers(roots);
        List<ExecNode<?>> nodes = new ArrayList<>(consumers.keySet());
        // Plan order (ids grow from the sources): a chain is met at its first node, and islands
        // are listed as EXPLAIN reads.
        nodes.sort(java.util.Comparator.comparingInt(ExecNode::getId));
        Set<ExecNode<?>> placed = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<ExecNode<?>> inIslands = Collections.newSetFromMap(new IdentityHashMap<>());
        if (enabled) {
            Map<ExecNode<?>, NativeExecNodeBase> next = forwardConsumers(nodes, consumers);
            for (ExecNode<?> node : nodes) {
                if (placed.contains(node) || role(node) == IslandRole.NONE) {
                    continue;
                }
                List<NativeExecNodeBase> chain = new ArrayList<>();
                for (NativeExecNodeBase at = (NativeExecNodeBase) node;
                        at != null && placed.add(at);
                        at = next.get(at)) {
                    chain.add(at);
                }
                for (Island island : cut(chain, report)) {
                    island.host();
                    inIslands.addAll(island.members);
                    List<String> members = new ArrayList<>();
                    island.members.forEach(member -> members.add(original(member)));
                    report.addIsland(members);
                }
            }
        }
        for (ExecNode<?> node : nodes) {
            if (!(node instanceof NativeExecNodeBase) || inIslands.contains(node)) {
                continue;
            }
            NativeExecNodeBase alone = (NativeExecNodeBase) node;
            String reason = alone.refusedAlone(enabled);
            if (reason != null) {
                restoreFlinkNode(alone, alone.original(), nodes);
                report.refuse(original(node), reason);
            }
        }
    }

    private static IslandRole role(ExecNode<?> node) {
        return node instanceof NativeExecNodeBase
                ? ((NativeExecNodeBase) node).islandRole()
                : IslandRole.NONE;
    }

    /**
     * Each native node's consumer on a forward edge where the node has no other consumer and the
     * consumer no other input: the next node of its chain.
     */
    private static Map<ExecNode<?>, NativeExecNodeBase> forwardConsumers(
            List<ExecNode<?>> nodes, Map<ExecNode<?>, Integer> consumers) {
        Map<ExecNode<?>, NativeExecNodeBase> next = new IdentityHashMap<>();
        for (ExecNode<?> node : nodes) {
            if (role(node) == IslandRole.NONE || node.getInputEdges().size() != 1) {
                continue;
            }
            ExecNode<?> source = node.getInputEdges().get(0).getSource();
            if (role(source) != IslandRole.NONE && consumers.get(source) == 1) {
                next.put(source, (NativeExecNodeBase) node);
            }
        }
        return next;
    }

    /**
     * Cuts a chain of native nodes on forward edges into islands of two or more members, as their
     * roles allow. An island either starts with a keyed operator, which runs it, followed by
     * stateless members; or it is stateless members with at most one watermark assigner among them
     * (only stateless members before it) and possibly a local aggregation phase last, run by its
     * last member. A member joins only where the plans compose and the running shell can call the
     * island's user-defined functions and hand out its watermarks.
     */
    private static List<Island> cut(List<NativeExecNodeBase> chain, SupportReport report) {
        List<Island> islands = new ArrayList<>();
        int at = 0;
        while (at < chain.size()) {
            NativeExecNodeBase first = chain.get(at);
            List<NativeExecNodeBase> island = new ArrayList<>(List.of(first));
            byte[] plan = first.plan();
            boolean keyed = first.islandRole() == IslandRole.KEYED;
            boolean watermark = first.islandRole() == IslandRole.WATERMARK;
            boolean ended = first.islandRole() == IslandRole.LOCAL;
            int next = at + 1;
            for (; next < chain.size() && !ended; next++) {
                NativeExecNodeBase member = chain.get(next);
                IslandRole role = member.islandRole();
                if (role == IslandRole.KEYED
                        || (keyed && role != IslandRole.STATELESS)
                        || (role == IslandRole.WATERMARK && watermark)) {
                    break;
                }
                // The shell that runs the island: a keyed first member, else the last member.
                NativeExecNodeBase runner = keyed ? first : member;
                byte[] joined = NativePlans.island(plan, member.plan());
                if (joined == null || (watermark && !runner.hostsWatermarks())) {
                    break;
                }
                if (NativePlans.callsUdfs(joined) && !runner.hostsUdfs()) {
                    report.addNote(
                            original(keyed ? member : chain.get(next - 1)), udfsKeepOutOf(runner));
                    break;
                }
                plan = joined;
                island.add(member);
                watermark |= role == IslandRole.WATERMARK;
                ended = role == IslandRole.LOCAL;
            }
            if (island.size() > 1) {
                islands.add(new Island(island, plan));
            }
            at = next;
        }
        return islands;
    }

    /** An island: its members in order, and the plan that runs them. */
    private static final class Island {
        final List<NativeExecNodeBase> members;
        final byte[] plan;

        Island(List<NativeExecNodeBase> members, byte[] plan) {
            this.members = members;
            this.plan = plan;
        }

        /**
         * Tells the members: a keyed first member runs the island, the stateless members after it
         * pass its output through; else the last member runs it and the members before it pass its
         * input through.
         */
        void host() {
            NativeExecNodeBase first = members.get(0);
            NativeExecNodeBase last = members.get(members.size() - 1);
            if (first.islandRole() == IslandRole.KEYED) {
                RowType output = (RowType) last.getOutputType();
                for (NativeExecNodeBase member : members.subList(1, members.size())) {
                    member.joinProducerIsland(output);
                }
                first.joinIslandBefore(last, plan);
                return;
            }
            RowType input = first.inputType();
            for (NativeExecNodeBase member : members.subList(0, members.size() - 1)) {
                member.joinConsumerIsland(input);
            }
            last.hostIsland(plan, input, members.size() - 1);
        }
    }

    /**
     * Why a native Calc that calls user-defined functions runs as an island of its own instead of
     * in the island of {@code aggregation}: that shell has no bridge to call them.
     */
    private static String udfsKeepOutOf(ExecNode<?> aggregation) {
        String operator = original(aggregation);
        int arguments = operator.indexOf('(');
        return "not in one island with the "
                + (arguments > 0 ? operator.substring(0, arguments) : operator)
                + " next to it: it calls user-defined functions, which that operator's shell cannot"
                + " call; its rows cross into and out of native code once more";
    }

    /** Puts {@code flink} back where {@code replaced} stands in the graph of {@code nodes}. */
    private static void restoreFlinkNode(
            ExecNode<?> replaced, ExecNode<?> flink, List<ExecNode<?>> nodes) {
        flink.setInputEdges(replaced.getInputEdges());
        for (ExecNode<?> node : nodes) {
            List<ExecEdge> edges = node.getInputEdges();
            for (int i = 0; i < edges.size(); i++) {
                ExecEdge edge = edges.get(i);
                if (edge.getSource() == replaced) {
                    node.replaceInputEdge(
                            i,
                            ExecEdge.builder()
                                    .source(flink)
                                    .target(node)
                                    .shuffle(edge.getShuffle())
                                    .exchangeMode(edge.getExchangeMode())
                                    .build());
                }
            }
        }
    }

    /** The description of the Flink operator a native node stands in for. */
    private static String original(ExecNode<?> nativeNode) {
        return nativeNode.getDescription().substring("Native".length());
    }

    /** Tells each native node whether it is the only consumer of its input node. */
    private static void markSoleConsumers(List<ExecNode<?>> roots) {
        Map<ExecNode<?>, Integer> consumers = consumers(roots);
        for (ExecNode<?> node : consumers.keySet()) {
            if (node instanceof NativeExecNodeBase && node.getInputEdges().size() == 1) {
                ExecNode<?> input = node.getInputEdges().get(0).getSource();
                ((NativeExecNodeBase) node).setSoleConsumerOfInput(consumers.get(input) == 1);
            }
        }
    }

    /**
     * Operators between the sources and the sinks: what "N of M operators native" counts. Not
     * counted: sources, sinks and plumbing that computes nothing per record (exchanges, and the
     * mini-batch assigner, which only forwards rows and emits bundle-ending watermarks).
     */
    private static boolean isCountedOperator(ExecNode<?> node) {
        return !(node instanceof StreamExecMiniBatchAssigner
                || node instanceof CommonExecTableSourceScan
                || node instanceof StreamExecLegacyTableSourceScan
                || node instanceof StreamExecDataStreamScan
                || node instanceof StreamExecValues
                || node instanceof CommonExecSink
                || node instanceof StreamExecLegacySink
                || node instanceof StreamExecExchange);
    }
}
