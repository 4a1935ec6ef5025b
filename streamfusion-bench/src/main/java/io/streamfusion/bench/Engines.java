package io.streamfusion.bench;

import io.streamfusion.planner.StreamFusion;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.util.Map;

/** Creates table environments for either engine on an embedded MiniCluster. */
public final class Engines {
    private Engines() {}

    /** Which planner plans the job. */
    public enum Engine {
        STOCK,
        NATIVE
    }

    static StreamTableEnvironment create(
            Engine engine, int parallelism, Map<String, String> options) {
        return create(engine, parallelism, new Configuration(), options);
    }

    /**
     * A table environment whose jobs each start a fresh MiniCluster configured by {@code cluster}
     * (memory, state backend), with the table options {@code options}.
     */
    public static StreamTableEnvironment create(
            Engine engine, int parallelism, Configuration cluster, Map<String, String> options) {
        Configuration conf = new Configuration(cluster);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        EnvironmentSettings settings = EnvironmentSettings.inStreamingMode();
        StreamTableEnvironment tEnv =
                engine == Engine.NATIVE
                        ? StreamFusion.create(env, settings)
                        : StreamTableEnvironment.create(env, settings);
        options.forEach((k, v) -> tEnv.getConfig().set(k, v));
        return tEnv;
    }
}
