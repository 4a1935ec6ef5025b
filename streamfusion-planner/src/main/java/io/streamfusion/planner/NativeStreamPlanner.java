package io.streamfusion.planner;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.ExplainFormat;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.FunctionCatalog;
import org.apache.flink.table.delegation.Executor;
import org.apache.flink.table.delegation.InternalPlan;
import org.apache.flink.table.module.ModuleManager;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.planner.delegation.StreamPlanner;
import org.apache.flink.table.planner.plan.ExecNodeGraphInternalPlan;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ProcessorContext;
import org.apache.flink.table.planner.plan.nodes.exec.visitor.AbstractExecNodeExactlyOnceVisitor;

import scala.collection.JavaConverters;
import scala.collection.Seq;

import java.util.List;

/**
 * Flink's StreamPlanner with StreamFusion's ExecNode processor. Everything else (parsing,
 * optimization, the ExecNode graph) is stock; the processor swaps supported nodes for native ones.
 */
public class NativeStreamPlanner extends StreamPlanner {
    private final NativeIslandProcessor processor = new NativeIslandProcessor();

    public NativeStreamPlanner(
            Executor executor,
            TableConfig tableConfig,
            ModuleManager moduleManager,
            FunctionCatalog functionCatalog,
            CatalogManager catalogManager,
            ClassLoader classLoader) {
        super(executor, tableConfig, moduleManager, functionCatalog, catalogManager, classLoader);
    }

    @Override
    public Seq<ExecNodeGraphProcessor> getExecNodeGraphProcessors() {
        return JavaConverters.asScalaBuffer(List.<ExecNodeGraphProcessor>of(processor)).toSeq();
    }

    /** Compiled plans stay stock Flink JSON: the processor sits out while compiling. */
    @Override
    public InternalPlan compilePlan(List<ModifyOperation> modifyOperations) {
        processor.setSuspended(true);
        try {
            return super.compilePlan(modifyOperations);
        } finally {
            processor.setSuspended(false);
        }
    }

    /**
     * EXECUTE PLAN (and {@code executePlan}): Flink translates a compiled plan's ExecNode graph as
     * it was deserialized, without the graph processors that run when a query is planned, so the
     * processor runs here; a compiled plan (stock Flink JSON, see {@link #compilePlan}) thus runs
     * natively as the query it was compiled from would. The native nodes keep the ExecNode ids of
     * the plan, from which Flink derives the operators' uids.
     */
    @Override
    public List<Transformation<?>> translatePlan(InternalPlan plan) {
        ExecNodeGraph graph = ((ExecNodeGraphInternalPlan) plan).getExecNodeGraph();
        ExecNodeGraph processed = processor.process(graph, new ProcessorContext(this));
        // Flink marks the nodes it deserialized as compiled, which under the default uid setting
        // (PLAN_ONLY) is what makes them set uids; the native nodes that replaced some of them
        // are compiled too, or their operators would lose the plan's uids (and a savepoint its
        // state).
        AbstractExecNodeExactlyOnceVisitor compiled =
                new AbstractExecNodeExactlyOnceVisitor() {
                    @Override
                    protected void visitNode(ExecNode<?> node) {
                        if (node instanceof ExecNodeBase) {
                            ((ExecNodeBase<?>) node).setCompiled(true);
                        }
                        visitInputs(node);
                    }
                };
        processed.getRootNodes().forEach(compiled::visit);
        beforeTranslation();
        List<Transformation<?>> transformations = translateToPlan(processed);
        afterTranslation();
        return transformations;
    }

    /** Flink's EXPLAIN, followed by the native operators and every fallback reason. */
    @Override
    public String explain(
            List<Operation> operations, ExplainFormat format, ExplainDetail... extraDetails) {
        processor.setExplaining(true);
        try {
            String flink = super.explain(operations, format, extraDetails);
            return flink
                    + (flink.endsWith("\n") ? "\n" : "\n\n")
                    + processor.lastReport().toExplainString();
        } finally {
            processor.setExplaining(false);
        }
    }

    /** The decisions of the last translation or EXPLAIN. */
    public SupportReport lastReport() {
        return processor.lastReport();
    }
}
