package io.streamfusion.planner.nodes;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.types.logical.RowType;

/**
 * A native node whose shell is the island shell ({@link
 * io.streamfusion.runtime.island.NativeIslandOperator}), which calls user-defined functions and
 * hands out the watermarks of an assigner inside; its operator may also run in the island of a node
 * after it.
 */
abstract class IslandShellNode extends NativeExecNodeBase {

    /** Set when a native node after this one runs it in its island: that island's input. */
    private RowType consumerIslandInput;

    protected IslandShellNode(ExecNodeBase<RowData> original, byte[] plan, RowType inputType) {
        super(original, plan, inputType);
    }

    @Override
    public boolean hostsUdfs() {
        return true;
    }

    @Override
    public boolean hostsWatermarks() {
        return true;
    }

    @Override
    public void joinConsumerIsland(RowType islandInput) {
        this.consumerIslandInput = islandInput;
    }

    /** The input of the island after this node that runs its operator, or null. */
    protected RowType consumerIslandInput() {
        return consumerIslandInput;
    }
}
