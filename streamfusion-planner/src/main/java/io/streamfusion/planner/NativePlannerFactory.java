package io.streamfusion.planner;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.planner.delegation.BatchPlanner;

import java.util.Collections;
import java.util.Set;

/**
 * The "default" planner factory that StreamFusion puts in place of Flink's: streaming mode gets a
 * {@link NativeStreamPlanner}, batch mode Flink's own BatchPlanner. Flink discovers planner
 * factories by the hard-coded identifier "default" (PlannerFactoryUtil), so this factory is made
 * visible instead of Flink's, never beside it (see {@link StreamFusion}).
 */
public final class NativePlannerFactory implements PlannerFactory {

    @Override
    public String factoryIdentifier() {
        return PlannerFactory.DEFAULT_IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.emptySet();
    }

    @Override
    public Planner create(Context context) {
        RuntimeExecutionMode mode = context.getTableConfig().get(ExecutionOptions.RUNTIME_MODE);
        switch (mode) {
            case STREAMING:
                return new NativeStreamPlanner(
                        context.getExecutor(),
                        context.getTableConfig(),
                        context.getModuleManager(),
                        context.getFunctionCatalog(),
                        context.getCatalogManager(),
                        context.getClassLoader());
            case BATCH:
                return new BatchPlanner(
                        context.getExecutor(),
                        context.getTableConfig(),
                        context.getModuleManager(),
                        context.getFunctionCatalog(),
                        context.getCatalogManager(),
                        context.getClassLoader());
            default:
                throw new TableException(
                        "Unsupported execution mode for StreamFusion's planner: " + mode);
        }
    }
}
