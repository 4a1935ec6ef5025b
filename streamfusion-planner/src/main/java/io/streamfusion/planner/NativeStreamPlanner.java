package io.streamfusion.planner;

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
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;

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
