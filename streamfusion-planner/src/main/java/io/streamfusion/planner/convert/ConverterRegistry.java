package io.streamfusion.planner.convert;

import io.streamfusion.planner.nodes.NativeExecNodeBase;

import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The converters of every {@link OperatorFamily} on the class path, by the Flink ExecNode class
 * each stands in for. A node class (or its nearest superclass) with no converter stays Flink's.
 */
public final class ConverterRegistry {
    private static volatile ConverterRegistry loaded;

    private final Map<Class<?>, NodeConverter<ExecNode<?>>> converters = new HashMap<>();
    private final Map<Class<?>, String> owners = new HashMap<>();

    /** The family whose {@link OperatorFamily#register} runs. */
    private String registering;

    private ConverterRegistry() {}

    /** A registry of the given families only. */
    public static ConverterRegistry of(OperatorFamily... families) {
        ConverterRegistry registry = new ConverterRegistry();
        for (OperatorFamily family : families) {
            registry.addFamily(family);
        }
        return registry;
    }

    /** The registry of every family listed as a service (loaded once per class loader). */
    public static ConverterRegistry load() {
        ConverterRegistry registry = loaded;
        if (registry == null) {
            List<OperatorFamily> families = new ArrayList<>();
            ServiceLoader.load(OperatorFamily.class, OperatorFamily.class.getClassLoader())
                    .forEach(families::add);
            registry = of(families.toArray(new OperatorFamily[0]));
            loaded = registry;
        }
        return registry;
    }

    private void addFamily(OperatorFamily family) {
        registering = family.getClass().getName();
        try {
            family.register(this);
        } finally {
            registering = null;
        }
    }

    /** Registers {@code converter} for the nodes of {@code nodeClass}. */
    public <N extends ExecNode<?>> void add(
            Class<N> nodeClass, NodeConverter<? super N> converter) {
        put(nodeClass, converter, registering);
    }

    /** Registers that {@code nodeClass} stays Flink's, always for {@code reason}. */
    public <N extends ExecNode<?>> void refuse(Class<N> nodeClass, String reason) {
        add(
                nodeClass,
                (node, context) -> {
                    throw new UnsupportedNativeException(reason);
                });
    }

    @SuppressWarnings("unchecked")
    private void put(Class<?> nodeClass, NodeConverter<?> converter, String owner) {
        String previous = owners.putIfAbsent(nodeClass, owner);
        if (previous != null) {
            throw new IllegalStateException(
                    nodeClass.getName()
                            + " has converters from two operator families: "
                            + previous
                            + " and "
                            + owner);
        }
        converters.put(nodeClass, (NodeConverter<ExecNode<?>>) converter);
    }

    /** Whether some family converts (or refuses) the nodes of {@code nodeClass}. */
    public boolean knows(Class<?> nodeClass) {
        return find(nodeClass) != null;
    }

    /** {@code node}'s native counterpart, or the reason it stays Flink's. */
    public NativeExecNodeBase convert(ExecNode<?> node, ConversionContext context)
            throws UnsupportedNativeException {
        NodeConverter<ExecNode<?>> converter = find(node.getClass());
        if (converter == null) {
            throw new UnsupportedNativeException(
                    node.getClass().getSimpleName() + " has no native operator yet");
        }
        return converter.convert(node, context);
    }

    private NodeConverter<ExecNode<?>> find(Class<?> nodeClass) {
        for (Class<?> c = nodeClass; c != null; c = c.getSuperclass()) {
            NodeConverter<ExecNode<?>> converter = converters.get(c);
            if (converter != null) {
                return converter;
            }
        }
        return null;
    }
}
