package io.streamfusion.runtime.window;

import javax.annotation.Nullable;

/**
 * A native step that MIN/MAX over an updating input may stop for whole maps: a retraction or merge
 * removed an extreme, and Flink then scans that map whole (Min/MaxWithRetractAggFunction's
 * updateMin/updateMax). The JVM reads the maps {@link #wholeMaps} names, hands their entries over
 * with {@link #supplyWholeMaps}, and runs the step again.
 */
public interface WholeMapSteps {

    /**
     * The number of whole maps the last step needs (0: it is done) and, when {@code groups} is not
     * null, each request's group (or fire) and map.
     */
    int wholeMapRequests(@Nullable int[] groups, @Nullable int[] maps);

    /** The maps the last step needs: each request's group (or fire) and map. */
    default NativeWindowAggregate.WholeMaps wholeMaps() {
        NativeWindowAggregate.WholeMaps requests =
                new NativeWindowAggregate.WholeMaps(wholeMapRequests(null, null));
        wholeMapRequests(requests.groups, requests.maps);
        return requests;
    }

    /**
     * Every entry of the requested maps: entry i of request {@code requestOf[i]}, its value a
     * one-field row image ({@code images[offsets[i] .. offsets[i+1])}) and its count {@code
     * counts[i]}.
     */
    void supplyWholeMaps(int[] requestOf, int count, byte[] images, int[] offsets, long[] counts);
}
