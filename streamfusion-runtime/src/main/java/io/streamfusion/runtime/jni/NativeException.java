package io.streamfusion.runtime.jni;

/** An error raised by the native engine, with the kind that tells whose fault it is. */
public final class NativeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whose fault an error is. The ordinal values are shared with native/.../jni_entry.cc. */
    public enum Kind {
        /** Bad data or a query error that stock Flink raises as well (e.g. "/ by zero"). */
        USER_ERROR,
        /** A bug in StreamFusion. */
        INTERNAL,
        /** The native memory budget (streamfusion.memory.budget) was exceeded. */
        OUT_OF_MEMORY
    }

    private final Kind kind;

    /** Called from native code only. */
    NativeException(int kind, String message) {
        super("[StreamFusion " + Kind.values()[kind] + "] " + message);
        this.kind = Kind.values()[kind];
    }

    public Kind getKind() {
        return kind;
    }
}
