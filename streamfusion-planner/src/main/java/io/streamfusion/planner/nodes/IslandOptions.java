package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.config.StreamFusionOptions;

import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;

/** Island settings that depend on more than one option. */
public final class IslandOptions {
    private IslandOptions() {}

    /**
     * Whether islands hand downstream rows in their native output memory: asked for
     * (streamfusion.experimental.borrowedStringExit) and provably safe, which it is only with
     * object reuse off. The shell checks the job's object reuse again when it opens.
     */
    public static boolean borrowsExit(ReadableConfig config) {
        return config.get(StreamFusionOptions.BORROWED_STRING_EXIT)
                && !config.get(PipelineOptions.OBJECT_REUSE);
    }
}
