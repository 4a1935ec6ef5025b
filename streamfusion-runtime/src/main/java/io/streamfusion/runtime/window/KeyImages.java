package io.streamfusion.runtime.window;

/**
 * The grouping keys of a prepared batch, in order of first appearance: {@code count} BinaryRowData
 * images back to back in {@code bytes}, key i at [offsets[i], offsets[i + 1]).
 */
public final class KeyImages {
    public final int count;
    public final byte[] bytes;
    public final int[] offsets;

    KeyImages(int count, int bytes) {
        this.count = count;
        this.bytes = new byte[bytes];
        this.offsets = new int[count + 1];
    }
}
