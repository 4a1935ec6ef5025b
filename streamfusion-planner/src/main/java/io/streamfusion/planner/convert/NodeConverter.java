package io.streamfusion.planner.convert;

import io.streamfusion.planner.nodes.NativeExecNodeBase;

import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;

/** Converts one kind of Flink ExecNode into its native node, or refuses with the reason. */
@FunctionalInterface
public interface NodeConverter<N extends ExecNode<?>> {
    NativeExecNodeBase convert(N node, ConversionContext context) throws UnsupportedNativeException;
}
