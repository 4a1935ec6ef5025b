package io.streamfusion.connectors.nexmark;

import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Serializes a split as (generator int, emitted long), and lists of splits for the enumerator. */
final class NexmarkSplitSerializer implements SimpleVersionedSerializer<NexmarkSplit> {
    static final NexmarkSplitSerializer INSTANCE = new NexmarkSplitSerializer();
    private static final int VERSION = 1;
    private static final int SPLIT_BYTES = Integer.BYTES + Long.BYTES;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(NexmarkSplit split) {
        return ByteBuffer.allocate(SPLIT_BYTES)
                .putInt(split.generator)
                .putLong(split.emitted)
                .array();
    }

    @Override
    public NexmarkSplit deserialize(int version, byte[] bytes) throws IOException {
        checkVersion(version);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        return new NexmarkSplit(in.getInt(), in.getLong());
    }

    /** The enumerator checkpoint: the splits not yet assigned to a reader. */
    static final class ListSerializer implements SimpleVersionedSerializer<List<NexmarkSplit>> {
        static final ListSerializer INSTANCE = new ListSerializer();

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(List<NexmarkSplit> splits) {
            ByteBuffer out = ByteBuffer.allocate(Integer.BYTES + splits.size() * SPLIT_BYTES);
            out.putInt(splits.size());
            for (NexmarkSplit split : splits) {
                out.putInt(split.generator).putLong(split.emitted);
            }
            return out.array();
        }

        @Override
        public List<NexmarkSplit> deserialize(int version, byte[] bytes) throws IOException {
            checkVersion(version);
            ByteBuffer in = ByteBuffer.wrap(bytes);
            int n = in.getInt();
            List<NexmarkSplit> splits = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                splits.add(new NexmarkSplit(in.getInt(), in.getLong()));
            }
            return splits;
        }
    }

    private static void checkVersion(int version) throws IOException {
        if (version != VERSION) {
            throw new IOException("Unknown nexmark split serializer version " + version);
        }
    }
}
