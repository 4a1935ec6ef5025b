package io.streamfusion.runtime.udf;

import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;

import java.io.Serializable;
import java.util.List;

/**
 * One call site of a user-defined {@link ScalarFunction} inside a native plan, as the planner
 * resolved it: the function instance, the data types of its eval arguments and result (with the
 * conversion classes Flink's type inference chose for the eval signature), and the logical types of
 * the operand values the native pipeline passes. Travels Java-serialized in the plan's
 * UdfDescriptor.
 */
public final class ScalarUdfSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String name;
    private final ScalarFunction function;
    private final List<DataType> argumentTypes;
    private final DataType outputType;
    private final List<LogicalType> operandTypes;
    private final LogicalType resultType;

    public ScalarUdfSpec(
            String name,
            ScalarFunction function,
            List<DataType> argumentTypes,
            DataType outputType,
            List<LogicalType> operandTypes,
            LogicalType resultType) {
        this.name = name;
        this.function = function;
        this.argumentTypes = argumentTypes;
        this.outputType = outputType;
        this.operandTypes = operandTypes;
        this.resultType = resultType;
    }

    public String name() {
        return name;
    }

    public ScalarFunction function() {
        return function;
    }

    public List<DataType> argumentTypes() {
        return argumentTypes;
    }

    public DataType outputType() {
        return outputType;
    }

    public List<LogicalType> operandTypes() {
        return operandTypes;
    }

    public LogicalType resultType() {
        return resultType;
    }
}
