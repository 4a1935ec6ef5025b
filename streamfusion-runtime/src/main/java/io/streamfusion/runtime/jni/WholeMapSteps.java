package io.streamfusion.runtime.jni;

/**
 * A native step that MIN/MAX over an updating input may stop for whole maps: a retraction or
 * merge removed an extreme, and Flink then scans that map whole (Min/MaxWithRetractAggFunction's
 * updateMin/updateMax). The JVM reads the maps {@link #wholeMaps} names, hands their entries over
 * with {@link #supplyWholeMaps}, and runs the step again.
 */
public interface WholeMapSteps {

    /** The maps the last step needs: each request's group (or fire) and map. */
    NativeWindowAggregate.WholeMaps wholeMaps();

    /**
     * Every entry of the requested maps: entry i of request {@code requestOf[i]}, its value a
     * one-field row image ({@code images[offsets[i] .. offsets[i+1])}) and its count {@code
     * counts[i]}.
     */
    void supplyWholeMaps(int[] requestOf, int count, byte[] images, int[] offsets, long[] counts);
}
