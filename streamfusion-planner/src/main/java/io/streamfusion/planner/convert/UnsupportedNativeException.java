package io.streamfusion.planner.convert;

/** Thrown by converters when a node or expression cannot run natively; carries the reason. */
public final class UnsupportedNativeException extends Exception {
    private static final long serialVersionUID = 1L;

    public UnsupportedNativeException(String reason) {
        super(reason, null, false, false);
    }
}
