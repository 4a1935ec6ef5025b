package io.streamfusion.planner.convert;

import java.lang.reflect.Field;

/** Reads an ExecNode's parameters. */
public final class NodeFields {
    private NodeFields() {}

    /**
     * The value of {@code node}'s field {@code name}. ExecNode parameters are private JSON
     * properties without getters; their names are the stable JSON property names (FLIP-190).
     */
    @SuppressWarnings("unchecked")
    public static <T> T read(Object node, String name) throws UnsupportedNativeException {
        for (Class<?> c = node.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field field = c.getDeclaredField(name);
                field.setAccessible(true);
                return (T) field.get(node);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            } catch (IllegalAccessException e) {
                throw new UnsupportedNativeException("cannot read " + name + ": " + e);
            }
        }
        throw new UnsupportedNativeException(
                node.getClass().getSimpleName()
                        + " has no field "
                        + name
                        + " in this Flink version");
    }
}
