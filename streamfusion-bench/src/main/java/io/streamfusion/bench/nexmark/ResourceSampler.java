package io.streamfusion.bench.nexmark;

import io.streamfusion.runtime.jni.NativeLib;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Measures one trial: process CPU time over the trial, and the peaks of used heap and of native
 * memory (every native pool of the process), sampled every {@link #PERIOD_MS} ms by a daemon
 * thread. Short-lived peaks between samples are missed; the heap is collected before each trial.
 */
final class ResourceSampler implements AutoCloseable {
    private static final long PERIOD_MS = 10;

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final long cpuStartNanos;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long peakHeapBytes;
    private volatile long peakNativeBytes;

    ResourceSampler() {
        NativeLib.ensureLoaded();
        sample();
        cpuStartNanos = os.getProcessCpuTime();
        thread = new Thread(this::loop, "nexmark-resource-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (running) {
            sample();
            try {
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sample() {
        peakHeapBytes = Math.max(peakHeapBytes, memory.getHeapMemoryUsage().getUsed());
        peakNativeBytes = Math.max(peakNativeBytes, NativeLib.globalMemoryBytes());
    }

    /** Process CPU seconds since this sampler started. */
    double cpuSeconds() {
        return (os.getProcessCpuTime() - cpuStartNanos) / 1e9;
    }

    long peakHeapBytes() {
        return peakHeapBytes;
    }

    long peakNativeBytes() {
        return peakNativeBytes;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join();
        sample();
    }
}
