package io.streamfusion.runtime.operators;

import io.streamfusion.runtime.jni.NativeWindowAggregate;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.io.IOException;
import java.util.Arrays;

/**
 * The DISTINCT map entries of windows fired and not yet computed (a HOP window merges its slices'
 * maps): each entry's fire, map, bitmask and value as a one-field row image, in the order Flink's
 * merge visits them.
 */
final class FireEntries {
    final ImageBuffer values = new ImageBuffer();
    int[] fires = new int[64];
    int[] maps = new int[64];
    long[] masks = new long[64];

    int count() {
        return values.count();
    }

    void add(int fire, int map, long mask, RowData value, RowDataSerializer serializer)
            throws IOException {
        int e = values.count();
        if (e == fires.length) {
            fires = Arrays.copyOf(fires, e * 2);
            maps = Arrays.copyOf(maps, e * 2);
            masks = Arrays.copyOf(masks, e * 2);
        }
        fires[e] = fire;
        maps[e] = map;
        masks[e] = mask;
        values.append(value, serializer);
    }

    void clear() {
        values.clear();
    }

    /** Hands the entries to the native aggregation before its next fire, and forgets them. */
    void sendTo(NativeWindowAggregate agg) {
        agg.setFireEntries(fires, maps, masks, count(), values.bytes(), values.offsets());
        clear();
    }
}
