package io.streamfusion.planner.convert;

/**
 * A family of native operators on the planner's side: registers a converter for each Flink ExecNode
 * class it stands in for (and a refusal with its reason for those it knows but cannot run).
 * Families are found with {@link java.util.ServiceLoader} from {@code
 * META-INF/services/io.streamfusion.planner.convert.OperatorFamily}; the planner names none.
 */
public interface OperatorFamily {
    void register(ConverterRegistry registry);
}
