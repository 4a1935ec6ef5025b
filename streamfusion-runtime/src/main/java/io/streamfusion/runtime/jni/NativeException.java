package io.streamfusion.runtime.jni;

import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.annotation.Nullable;

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

    /**
     * The exception Flink's own function threw when native code asked the JVM for it (a string CAST
     * it could not parse): thrown as it is if the error it caused reaches the JVM on this thread,
     * replaced by the next.
     */
    private static final ThreadLocal<RuntimeException> FLINK_ERROR = new ThreadLocal<>();

    /** Keeps {@code e} for the native error it is about to cause (see {@link #of}). */
    public static void keepFlinkError(RuntimeException e) {
        FLINK_ERROR.set(e);
    }

    /** "java.lang.NumberFormatException: text": the class Flink throws, then its message. */
    private static final Pattern JAVA_EXCEPTION =
            Pattern.compile(
                    "((?:[a-z_][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)): (.*)",
                    Pattern.DOTALL);

    /**
     * The exception that native code throws for an error of {@code kind}: a user error that names
     * the exception Flink throws for it (its message starts with that class's name, as {@code
     * Throwable.toString} prints it) becomes that exception with Flink's whole message, so that a
     * user's log search and alerting see what stock Flink gives; this NativeException is attached
     * to it as a suppressed exception. Every other error is this NativeException. Called from
     * native code only.
     */
    static RuntimeException of(int kind, String message) {
        NativeException error = new NativeException(kind, message);
        RuntimeException kept = FLINK_ERROR.get();
        FLINK_ERROR.remove();
        if (error.kind != Kind.USER_ERROR) {
            return error;
        }
        if (kept != null && kept.toString().equals(message)) {
            // The very exception Flink's own function threw for this error, cause and all.
            kept.addSuppressed(error);
            return kept;
        }
        Matcher m = JAVA_EXCEPTION.matcher(message);
        if (!m.matches()) {
            return error;
        }
        RuntimeException flink = instantiate(m.group(1), m.group(2));
        if (flink == null) {
            return error;
        }
        flink.addSuppressed(error);
        return flink;
    }

    /** DateTimeParseException's text, and the index of its parse's error or unparsed text. */
    private static final Pattern DATE_TIME_PARSE =
            Pattern.compile(
                    "Text '(.*)' could not be parsed(?:.* at index (\\d+))?.*", Pattern.DOTALL);

    /** An unchecked exception of class {@code name} with {@code message}, or null. */
    @Nullable
    private static RuntimeException instantiate(String name, String message) {
        try {
            Class<?> type = Class.forName(name, false, NativeException.class.getClassLoader());
            if (!RuntimeException.class.isAssignableFrom(type)) {
                return null;
            }
            if (type == DateTimeParseException.class) {
                // No (String) constructor: the parsed text and index come from the message.
                Matcher m = DATE_TIME_PARSE.matcher(message);
                boolean matched = m.matches();
                return new DateTimeParseException(
                        message,
                        matched ? m.group(1) : "",
                        matched && m.group(2) != null ? Integer.parseInt(m.group(2)) : 0);
            }
            return (RuntimeException) type.getConstructor(String.class).newInstance(message);
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }
}
