package org.apache.flink.table.planner.delegation;

import io.streamfusion.planner.NativePlannerFactory;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;

import java.util.Set;

/**
 * StreamFusion's stand-in for Flink's planner factory in a Flink cluster. Flink finds planner
 * factories only by the identifier "default" and the class name its planner jar lists, so the
 * StreamFusion jar, placed in {@code lib/} so that it sorts before {@code
 * flink-table-planner_2.12-*.jar} (with the planner jar moved there from {@code opt/} in place of
 * the planner loader), provides this class under that name. It only delegates to {@link
 * NativePlannerFactory}; {@code streamfusion.enabled: false} gives stock behaviour.
 */
public final class DefaultPlannerFactory implements PlannerFactory {
    private final NativePlannerFactory delegate = new NativePlannerFactory();

    @Override
    public String factoryIdentifier() {
        return delegate.factoryIdentifier();
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return delegate.requiredOptions();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return delegate.optionalOptions();
    }

    @Override
    public Planner create(Context context) {
        return delegate.create(context);
    }
}
