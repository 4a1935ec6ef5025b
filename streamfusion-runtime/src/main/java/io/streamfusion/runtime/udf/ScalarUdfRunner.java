package io.streamfusion.runtime.udf;

import io.streamfusion.runtime.transpose.FieldUse;
import io.streamfusion.runtime.transpose.RowImageBatch;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.extraction.ExtractionUtils;
import org.apache.flink.table.types.logical.RowType;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;

/**
 * Runs one {@link ScalarUdfSpec} over a batch of operand rows, the way Flink's generated code calls
 * a ScalarFunction (BridgingFunctionGenUtil): each operand converted from its internal value to the
 * eval argument's conversion class by Flink's {@link DataStructureConverters} (NULL stays null for
 * reference types), eval invoked with those arguments (varargs collected as Java would), the result
 * converted back to its internal value.
 */
final class ScalarUdfRunner {
    private final ScalarUdfSpec spec;
    private final ScalarFunction function;
    private final RowData.FieldGetter[] getters;
    private final DataStructureConverter<Object, Object>[] arguments;
    private final DataStructureConverter<Object, Object> result;
    private final BinaryRowData argumentRow;
    private final GenericRowData resultRow = new GenericRowData(1);
    private final Object[] values;
    private final RowImageBatch results;
    private final MethodHandle eval;

    @SuppressWarnings("unchecked")
    ScalarUdfRunner(ScalarUdfSpec spec, ClassLoader classLoader) {
        this.spec = spec;
        this.function = spec.function();
        int arity = spec.operandTypes().size();
        this.getters = new RowData.FieldGetter[arity];
        this.arguments = new DataStructureConverter[arity];
        for (int i = 0; i < arity; i++) {
            getters[i] = RowData.createFieldGetter(spec.operandTypes().get(i), i);
            arguments[i] = DataStructureConverters.getConverter(spec.argumentTypes().get(i));
            arguments[i].open(classLoader);
        }
        this.result = DataStructureConverters.getConverter(spec.outputType());
        result.open(classLoader);
        this.argumentRow = new BinaryRowData(arity);
        this.values = new Object[arity];
        this.results = new RowImageBatch(RowType.of(spec.resultType()), FieldUse.all(), 1024);
        this.eval = evalHandle(function, spec.argumentTypes());
    }

    /** A handle (Object[] arguments) -> Object calling the eval method Flink would call. */
    private static MethodHandle evalHandle(ScalarFunction function, List<DataType> argumentTypes) {
        Class<?>[] classes = new Class<?>[argumentTypes.size()];
        for (int i = 0; i < classes.length; i++) {
            classes[i] = argumentTypes.get(i).getConversionClass();
        }
        Method chosen = null;
        for (Method method : ExtractionUtils.collectMethods(function.getClass(), "eval")) {
            if (!ExtractionUtils.isInvokable(ExtractionUtils.Autoboxing.JVM, method, classes)) {
                continue;
            }
            // Like javac's overload resolution, a fixed-arity method wins over a varargs one.
            if (chosen == null
                    || (chosen.isVarArgs() && !method.isVarArgs())
                    || Arrays.equals(method.getParameterTypes(), classes)) {
                chosen = method;
            }
        }
        if (chosen == null) {
            throw new IllegalStateException(
                    "No eval method of "
                            + function.getClass().getName()
                            + " accepts "
                            + Arrays.toString(classes));
        }
        try {
            chosen.setAccessible(true);
            MethodHandle handle = MethodHandles.lookup().unreflect(chosen);
            // On a varargs method, asType to a different arity collects the trailing arguments.
            handle = handle.asType(MethodType.genericMethodType(classes.length + 1));
            return handle.bindTo(function).asSpreader(Object[].class, classes.length);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot access " + chosen, e);
        }
    }

    void open(FunctionContext context) throws Exception {
        function.open(context);
    }

    void close() throws Exception {
        function.close();
    }

    String name() {
        return spec.name();
    }

    /**
     * Calls eval once per row image {@code rows[offsets[i] .. offsets[i+1])}; returns the result
     * images (arity 1) and writes their numRows + 1 offsets into {@code resultOffsets}.
     */
    byte[] run(byte[] rows, int[] offsets, int numRows, int[] resultOffsets) throws Throwable {
        MemorySegment segment = MemorySegmentFactory.wrap(rows);
        results.clear();
        for (int i = 0; i < numRows; i++) {
            argumentRow.pointTo(segment, offsets[i], offsets[i + 1] - offsets[i]);
            for (int j = 0; j < values.length; j++) {
                Object internal = getters[j].getFieldOrNull(argumentRow);
                values[j] = internal == null ? null : arguments[j].toExternal(internal);
            }
            Object external = (Object) eval.invokeExact(values);
            resultRow.setField(0, external == null ? null : result.toInternal(external));
            results.addUntimed(resultRow);
        }
        System.arraycopy(results.offsets(), 0, resultOffsets, 0, numRows + 1);
        return results.bytes();
    }
}
