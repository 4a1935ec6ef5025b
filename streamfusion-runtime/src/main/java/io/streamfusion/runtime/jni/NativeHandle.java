package io.streamfusion.runtime.jni;

/**
 * Owns one native object through its handle: refuses use after {@link #close()}, frees the object
 * exactly once, and reports its memory (0 once freed). The native aggregations extend it.
 */
public abstract class NativeHandle implements AutoCloseable {
    private final String what;
    private long handle;

    protected NativeHandle(long handle, String what) {
        this.handle = handle;
        this.what = what;
    }

    /** The live handle; an IllegalStateException naming the object after close. */
    protected final long handle() {
        if (handle == 0) {
            throw new IllegalStateException(what + " used after close");
        }
        return handle;
    }

    /** Bytes the native object holds; 0 after close. */
    public final long memoryBytes() {
        return handle == 0 ? 0 : memoryBytes(handle);
    }

    @Override
    public final void close() {
        if (handle != 0) {
            free(handle);
            handle = 0;
        }
    }

    protected abstract long memoryBytes(long handle);

    protected abstract void free(long handle);
}
