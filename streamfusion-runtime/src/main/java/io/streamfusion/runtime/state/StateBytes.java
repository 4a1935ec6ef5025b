package io.streamfusion.runtime.state;

import java.util.Arrays;

/**
 * A growable little-endian byte buffer: the state port's answers, and the values codecs encode. A
 * blob is its length (int32) followed by its bytes.
 */
public final class StateBytes {
    private byte[] bytes = new byte[256];
    private int size;

    public void clear() {
        size = 0;
    }

    public int size() {
        return size;
    }

    public byte[] toArray() {
        return Arrays.copyOf(bytes, size);
    }

    public void writeInt(int value) {
        ensure(4);
        bytes[size] = (byte) value;
        bytes[size + 1] = (byte) (value >>> 8);
        bytes[size + 2] = (byte) (value >>> 16);
        bytes[size + 3] = (byte) (value >>> 24);
        size += 4;
    }

    public void writeByte(int value) {
        ensure(1);
        bytes[size++] = (byte) value;
    }

    public void writeLong(long value) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            bytes[size + i] = (byte) (value >>> (8 * i));
        }
        size += 8;
    }

    public void write(byte[] source, int offset, int length) {
        ensure(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
    }

    /** Reserves an int32 (a blob's length or a count) and returns its position. */
    public int reserveInt() {
        int at = size;
        writeInt(0);
        return at;
    }

    /** Sets the int32 at {@code at} (from {@link #reserveInt}). */
    public void patchInt(int at, int value) {
        bytes[at] = (byte) value;
        bytes[at + 1] = (byte) (value >>> 8);
        bytes[at + 2] = (byte) (value >>> 16);
        bytes[at + 3] = (byte) (value >>> 24);
    }

    /**
     * The backing array: a codec writes at {@link #size()} after {@link #ensure}, then advances.
     */
    byte[] array() {
        return bytes;
    }

    /** Makes room for {@code more} bytes (writers that fill {@link #array()} themselves). */
    void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(size + more, bytes.length * 2));
        }
    }

    void advance(int n) {
        size += n;
    }

    static int readInt(byte[] b, int at) {
        return (b[at] & 0xff)
                | (b[at + 1] & 0xff) << 8
                | (b[at + 2] & 0xff) << 16
                | (b[at + 3] & 0xff) << 24;
    }

    static long readLong(byte[] b, int at) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = value << 8 | (b[at + i] & 0xff);
        }
        return value;
    }
}
