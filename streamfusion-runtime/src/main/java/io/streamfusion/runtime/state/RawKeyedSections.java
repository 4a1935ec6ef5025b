package io.streamfusion.runtime.state;

import io.streamfusion.runtime.NativePipeline;

import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyGroupsList;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Native-owned state in Flink's raw keyed state: one section per key group, as a native island's
 * snapshot holds them (int32 length, then the section's bytes; length 0 for a key group without
 * state), so that checkpoints, failure recovery and restores at another parallelism (key groups
 * redistributed) are Flink's own. Used by every shell whose island owns its state: native window
 * state, and state in the native store.
 */
public final class RawKeyedSections {

    private final List<Integer> keyGroups = new ArrayList<>();
    private final List<byte[]> sections = new ArrayList<>();

    private RawKeyedSections() {}

    /** The sections of the key groups this subtask restores (none when not restored). */
    public static RawKeyedSections read(StateInitializationContext context) throws IOException {
        RawKeyedSections restored = new RawKeyedSections();
        if (!context.isRestored()) {
            return restored;
        }
        for (KeyGroupStatePartitionStreamProvider provider : context.getRawKeyedStateInputs()) {
            DataInputStream in = new DataInputStream(provider.getStream());
            int length = in.readInt();
            if (length > 0) {
                byte[] section = new byte[length];
                in.readFully(section);
                restored.keyGroups.add(provider.getKeyGroupId());
                restored.sections.add(section);
            }
        }
        return restored;
    }

    /** Hands every section to the island, before its first input. */
    public void restoreInto(NativePipeline pipeline) {
        for (int i = 0; i < sections.size(); i++) {
            pipeline.restore(keyGroups.get(i), sections.get(i));
        }
    }

    /**
     * Writes {@code snapshot}'s sections into the checkpoint's raw keyed state: every key group of
     * the subtask's range gets a section (empty: length 0), so a restore never meets a key group
     * without one. {@code what} names the state in the error for a key group outside the range.
     */
    public static void write(
            StateSnapshotContext context, NativePipeline.Snapshot snapshot, String what)
            throws Exception {
        KeyedStateCheckpointOutputStream out = context.getRawKeyedOperatorStateOutput();
        DataOutputStream data = new DataOutputStream(out);
        KeyGroupsList groups = out.getKeyGroupList();
        int section = 0;
        for (int i = 0; i < groups.getNumberOfKeyGroups(); i++) {
            int keyGroup = groups.getKeyGroupId(i);
            out.startNewKeyGroup(keyGroup);
            if (section < snapshot.keyGroups.length && snapshot.keyGroups[section] == keyGroup) {
                int from = snapshot.offsets[section];
                int length = snapshot.offsets[section + 1] - from;
                data.writeInt(length);
                data.write(snapshot.bytes, from, length);
                section++;
            } else {
                data.writeInt(0);
            }
            data.flush();
        }
        if (section != snapshot.keyGroups.length) {
            throw new IllegalStateException(
                    what + " holds keys of key groups outside this subtask's range " + groups);
        }
    }
}
