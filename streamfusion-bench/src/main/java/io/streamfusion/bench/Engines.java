package io.streamfusion.bench;

import io.streamfusion.planner.StreamFusion;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.util.Map;

/** Creates table environments for either engine on an embedded MiniCluster. */
final class Engines {
    private Engines() {}

    enum Engine {
        STOCK,
        NATIVE
    }

    static StreamTableEnvironment create(Engine engine, int parallelism, Map<String, String> options) {
        Configuration conf = new Configuration();
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
