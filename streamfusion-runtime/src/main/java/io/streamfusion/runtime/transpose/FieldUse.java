package io.streamfusion.runtime.transpose;

import io.streamfusion.plan.AggregateCall;
import io.streamfusion.plan.DistinctAggregate;
import io.streamfusion.plan.Expr;
import io.streamfusion.plan.GroupAggregateNode;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.Plan;
import io.streamfusion.plan.WindowAggregateNode;

import java.util.Map;
import java.util.TreeMap;

import javax.annotation.Nullable;

/**
 * Which fields of the island's input a native plan reads: a field read whole, or only some of its
 * nested fields (`bid`.`price` reads field 1 of field 3). The entry transpose writes only these;
 * every other field reaches the native engine as NULL, which nothing there reads.
 */
public final class FieldUse {
    private boolean whole;
    private final Map<Integer, FieldUse> children = new TreeMap<>();

    private FieldUse() {}

    /** Everything read: the use of a plan whose first operator this class cannot analyse. */
    public static FieldUse all() {
        FieldUse use = new FieldUse();
        use.whole = true;
        return use;
    }

    /** The input fields the first operator of {@code plan} reads (later ones read its output). */
    public static FieldUse of(Plan plan) {
        if (plan.getOperatorsCount() > 0
                && plan.getOperators(0).getKindCase() == Operator.KindCase.GROUP_AGGREGATE) {
            GroupAggregateNode node = plan.getOperators(0).getGroupAggregate();
            // A GLOBAL aggregation's calls index the LOCAL input; it reads its whole input.
            return node.getMode() == GroupAggregateNode.Mode.GLOBAL ? all() : ofAggregate(node);
        }
        if (plan.getOperatorsCount() > 0
                && plan.getOperators(0).getKindCase() == Operator.KindCase.WINDOW_AGGREGATE) {
            WindowAggregateNode window = plan.getOperators(0).getWindowAggregate();
            if (window.getMode() == WindowAggregateNode.Mode.GLOBAL) {
                return all();
            }
            FieldUse use = ofAggregate(window.getAggregate());
            if (window.getTimeField() >= 0) {
                use.child(window.getTimeField()).whole = true;
            }
            // Rows that carry their windows (after a window TVF or aggregation): the window end.
            if (window.getWindowed()) {
                use.child(window.getSliceEndField()).whole = true;
            }
            return use;
        }
        if (plan.getOperatorsCount() == 0
                || plan.getOperators(0).getKindCase() != Operator.KindCase.CALC) {
            return all();
        }
        FieldUse root = new FieldUse();
        var calc = plan.getOperators(0).getCalc();
        for (Expr projection : calc.getProjectionsList()) {
            root.visit(projection);
        }
        if (calc.hasCondition()) {
            root.visit(calc.getCondition());
        }
        return root;
    }

    /**
     * A group aggregation reads its grouping fields, its calls' arguments and filter fields, and
     * its DISTINCT maps' arguments and filter fields (a DISTINCT call's filter is its map's).
     */
    private static FieldUse ofAggregate(GroupAggregateNode node) {
        FieldUse root = new FieldUse();
        node.getGroupingList().forEach(i -> root.child(i).whole = true);
        for (AggregateCall call : node.getCallsList()) {
            call.getArgsList().forEach(i -> root.child(i).whole = true);
            root.readIfField(call.getFilterArg());
        }
        for (DistinctAggregate distinct : node.getDistinctsList()) {
            root.readIfField(distinct.getArg());
            distinct.getFilterArgsList().forEach(root::readIfField);
        }
        return root;
    }

    /** Marks field {@code index} read whole; a negative index (no field) marks nothing. */
    private void readIfField(int index) {
        if (index >= 0) {
            child(index).whole = true;
        }
    }

    private void visit(Expr expr) {
        switch (expr.getNodeCase()) {
            case INPUT_REF:
                child(expr.getInputRef()).whole = true;
                break;
            case FIELD_ACCESS:
                {
                    // A chain a.b.c over an input field reads only that nested field.
                    int depth = 0;
                    Expr base = expr;
                    while (base.getNodeCase() == Expr.NodeCase.FIELD_ACCESS) {
                        base = base.getFieldAccess().getInput();
                        depth++;
                    }
                    if (base.getNodeCase() != Expr.NodeCase.INPUT_REF) {
                        visit(base);
                        break;
                    }
                    int[] path = new int[depth];
                    Expr step = expr;
                    for (int i = depth - 1; i >= 0; i--) {
                        path[i] = step.getFieldAccess().getFieldIndex();
                        step = step.getFieldAccess().getInput();
                    }
                    FieldUse use = child(base.getInputRef());
                    for (int index : path) {
                        use = use.child(index);
                    }
                    use.whole = true;
                    break;
                }
            case CALL:
                for (Expr operand : expr.getCall().getOperandsList()) {
                    visit(operand);
                }
                break;
            default:
                break;
        }
    }

    private FieldUse child(int index) {
        return children.computeIfAbsent(index, i -> new FieldUse());
    }

    /** Whether the whole value is read (all nested fields, if any). */
    public boolean isWhole() {
        return whole;
    }

    /** The use of field {@code index}; null when the field is not read at all. */
    @Nullable
    public FieldUse field(int index) {
        return whole ? this : children.get(index);
    }
}
