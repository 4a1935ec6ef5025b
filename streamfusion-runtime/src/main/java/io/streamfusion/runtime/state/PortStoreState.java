package io.streamfusion.runtime.state;

import io.streamfusion.plan.Plan;
import io.streamfusion.plan.PortStoreOptions;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * What a shell does whose island keeps its state port's states (and event-time timers) in the
 * native store (Plan.port_store, native/src/streamfusion/state/port_store.h) instead of Flink's
 * keyed state, around Flink's checkpoints: the group aggregation and the window operators over
 * TimeWindows. Checkpoints hold the store's key groups in Flink's raw keyed state ({@link
 * RawKeyedSections}), so that recovery and rescaling are Flink's; a savepoint holds the state in
 * Flink's own layout (the store's content is written into the declared Flink states and timer
 * services before the snapshot's synchronous part and removed after it), so that stock Flink, or
 * this engine over Flink state, restores it; and a restore moves state found in Flink's layout into
 * the store ({@link KeyedStatePort#moveOut}). The shells' base, NativeBatchOperator, does this
 * around Flink's snapshots when a shell names such state.
 */
public final class PortStoreState {

    /** The size of the state port messages that move state between the store and Flink state. */
    public static final int MESSAGE_BYTES = 1 << 20;

    private final String what;
    private RawKeyedSections restored;
    private boolean savepoint;
    private NativePipeline pipeline;
    private KeyedStatePort port;
    private Path directory;

    /** {@code what} names the state in logs and errors ("Native group aggregation state"). */
    public PortStoreState(String what) {
        this.what = what;
    }

    /**
     * {@code parsed} with the port store of {@code port}'s states and event-time timers, in {@code
     * directory}.
     */
    public byte[] withPortStore(
            Plan parsed,
            Path directory,
            long memoryBytes,
            int maxParallelism,
            KeyedStatePort port,
            List<String> timerServices) {
        this.directory = directory;
        PortStoreOptions.Builder store =
                PortStoreOptions.newBuilder()
                        .setDirectory(directory.toString())
                        .setMemoryBytes(memoryBytes)
                        .setMaxParallelism(maxParallelism)
                        .addAllTimers(timerServices)
                        .addAllValueStates(port.valueStates());
        for (String name : port.stateNames()) {
            store.addStates(name == null ? "" : name);
        }
        return parsed.toBuilder().setPortStore(store).build().toByteArray();
    }

    /** Reads the store's sections of a restored checkpoint (initializeState). */
    public void initialize(StateInitializationContext context) throws Exception {
        restored = RawKeyedSections.read(context);
    }

    /**
     * Hands the restored sections to the island and moves state in Flink's layout (a savepoint)
     * into its store, before the first input; returns the keys moved. The island's {@code pipeline}
     * and {@code port} then take part in the checkpoints and savepoints.
     */
    public int restore(NativePipeline pipeline, KeyedStatePort port, KeyedStateBackend<?> backend)
            throws Exception {
        this.pipeline = pipeline;
        this.port = port;
        restored.restoreInto(pipeline);
        restored = null;
        return port.moveOut(backend, MESSAGE_BYTES, pipeline::importStore);
    }

    /**
     * Takes a savepoint with {@code snapshot} (the operator's snapshotState) while the store's
     * content is in the declared Flink states, which are emptied again after it. {@code restoreKey}
     * sets back the key the operator had before.
     */
    public <T> T savepoint(Callable<T> snapshot, Runnable restoreKey) throws Exception {
        if (pipeline == null) {
            // Not open: no state to write (the snapshot of a task that never ran).
            return snapshot.call();
        }
        pipeline.exportStore(false, MESSAGE_BYTES, message -> applyToFlinkState(port, message));
        savepoint = true;
        try {
            return snapshot.call();
        } finally {
            savepoint = false;
            pipeline.exportStore(true, MESSAGE_BYTES, message -> applyToFlinkState(port, message));
            restoreKey.run();
        }
    }

    /** A checkpoint (not a savepoint) writes the store's key groups into raw keyed state. */
    public void checkpoint(StateSnapshotContext context) throws Exception {
        if (pipeline == null) {
            throw new IllegalStateException(what + " is checkpointed before the island opened");
        }
        if (!savepoint) {
            RawKeyedSections.write(context, pipeline.snapshot(), what);
        }
    }

    /**
     * Records how many bytes the store's files take ({@link NativeMetrics#recordStoreFiles}),
     * before the island closes and deletes them: state beyond the store's memory lives there.
     */
    public void close() {
        if (directory == null || !Files.isDirectory(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            NativeMetrics.recordStoreFiles(
                    files.filter(Files::isRegularFile)
                            .mapToLong(
                                    file -> {
                                        try {
                                            return Files.size(file);
                                        } catch (IOException e) {
                                            return 0; // deleted meanwhile (a compaction)
                                        }
                                    })
                            .sum());
        } catch (IOException | UncheckedIOException e) {
            // Only a measurement: the store is about to be deleted.
        }
    }

    /** Applies a message of the store's writes (or clears) to the declared Flink states. */
    private void applyToFlinkState(KeyedStatePort port, byte[] message) {
        try {
            if (port.serve(message, 0) != null) {
                throw new IllegalStateException("The native store's export holds reads");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write " + what + " into Flink state", e);
        }
    }
}
