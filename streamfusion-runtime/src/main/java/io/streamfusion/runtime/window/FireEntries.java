package io.streamfusion.runtime.window;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.io.IOException;
import java.util.Arrays;

/**
 * The DISTINCT map entries of windows fired and not yet computed, in the order Flink's merge visits
 * them: each entry's fire, map, bitmask and value as a one-field row image. A HOP window merges its
 * slices' maps; a CUMULATE window merges its current slice's map into its first slice's, so its
 * entries also carry the first slice's value ({@link #addMerged}) and the value itself, to be put
 * back after the fire. A map's {@code long[]} value (several DISTINCT calls counting) is as many
 * consecutive entries as it has lanes, one count each. The maps of MIN/MAX over an updating input
 * (value to count) follow the DISTINCT maps; a HOP window's entries carry their slice ({@link
 * #slice} when added), whose accumulator merges them.
 */
final class FireEntries {
    final ImageBuffer values = new ImageBuffer();
    int[] fires = new int[64];
    int[] maps = new int[64];
    long[] masks = new long[64];
    int[] slices = new int[64];

    /** The slice of the entries added next (HOP: 0 for the latest). */
    int slice;

    /** CUMULATE: the first slice's value of each entry, 1 in basePresent where it has one. */
    long[] bases;

    byte[] basePresent;

    /** CUMULATE: each entry's value as the state map holds it (null: the NULL value). */
    Object[] keys;

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
            slices = Arrays.copyOf(slices, e * 2);
        }
        slices[e] = slice;
        fires[e] = fire;
        maps[e] = map;
        masks[e] = mask;
        values.append(value, serializer);
    }

    /** A CUMULATE entry: as {@link #add}, with the first slice's value ({@code base} or null). */
    void addMerged(
            int fire,
            int map,
            long mask,
            Object key,
            Long base,
            RowData value,
            RowDataSerializer serializer)
            throws IOException {
        int e = values.count();
        if (bases == null) {
            bases = new long[fires.length];
            basePresent = new byte[fires.length];
            keys = new Object[fires.length];
        }
        add(fire, map, mask, value, serializer);
        if (e == bases.length) {
            bases = Arrays.copyOf(bases, fires.length);
            basePresent = Arrays.copyOf(basePresent, fires.length);
            keys = Arrays.copyOf(keys, fires.length);
        }
        bases[e] = base == null ? 0 : base;
        basePresent[e] = (byte) (base == null ? 0 : 1);
        keys[e] = key;
    }

    void clear() {
        values.clear();
        if (keys != null) {
            Arrays.fill(keys, null);
        }
    }

    /**
     * Hands the entries to the native aggregation before its next fire: CUMULATE's {@code merged}
     * ones with their first slices' values, HOP's with their slices.
     */
    void sendTo(NativeWindowAggregate agg, boolean merged) {
        agg.setFireEntries(
                fires,
                maps,
                masks,
                count(),
                values.bytes(),
                values.offsets(),
                merged ? bases == null ? new long[0] : bases : null,
                merged ? basePresent == null ? new byte[0] : basePresent : null,
                merged ? null : slices);
    }
}
