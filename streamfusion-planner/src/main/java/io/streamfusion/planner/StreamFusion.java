package io.streamfusion.planner;

import io.streamfusion.runtime.jni.NativeLib;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.delegation.Planner;

import java.util.function.Supplier;

/**
 * Embedded use of StreamFusion: table environments whose planner runs supported operators natively.
 * Configure with the {@code streamfusion.*} keys (see {@link
 * io.streamfusion.runtime.config.StreamFusionOptions}); {@code streamfusion.enabled=false} gives
 * stock Flink behaviour.
 *
 * <pre>{@code
 * StreamTableEnvironment tEnv = StreamFusion.create(env);
 * tEnv.executeSql("SELECT a + 1 FROM t WHERE b > 0").print();
 * }</pre>
 */
public final class StreamFusion {
    private StreamFusion() {}

    public static StreamTableEnvironment create(StreamExecutionEnvironment env) {
        return create(env, EnvironmentSettings.inStreamingMode());
    }

    public static StreamTableEnvironment create(
            StreamExecutionEnvironment env, EnvironmentSettings settings) {
        return withNativePlanner(() -> StreamTableEnvironment.create(env, settings));
    }

    public static TableEnvironment create(EnvironmentSettings settings) {
        return withNativePlanner(() -> TableEnvironment.create(settings));
    }

    /** The StreamFusion planner of a table environment made by this class. */
    public static NativeStreamPlanner planner(TableEnvironment tableEnvironment) {
        Planner planner = ((TableEnvironmentImpl) tableEnvironment).getPlanner();
        if (!(planner instanceof NativeStreamPlanner)) {
            throw new IllegalArgumentException("Not a StreamFusion table environment: " + planner);
        }
        return (NativeStreamPlanner) planner;
    }

    private static <T> T withNativePlanner(Supplier<T> factory) {
        NativeLib.ensureLoaded();
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        ClassLoader parent = previous != null ? previous : StreamFusion.class.getClassLoader();
        thread.setContextClassLoader(new PlannerFactoryClassLoader(parent));
        try {
            return factory.get();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
