package io.streamfusion.planner.nodes;

/** An ExecNode that StreamFusion runs natively. */
public interface NativeExecNode {
    /** The serialized native plan this node runs (for EXPLAIN, tools and profiling). */
    byte[] plan();

    /** A remark EXPLAIN prints under the operator (e.g. where its state lives), or null. */
    default String note() {
        return null;
    }
}
