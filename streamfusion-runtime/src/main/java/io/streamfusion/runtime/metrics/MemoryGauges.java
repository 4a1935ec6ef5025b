package io.streamfusion.runtime.metrics;

import io.streamfusion.runtime.jni.NativeLib;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskManagerMetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.LongSupplier;

/**
 * The native memory gauges, both named {@value #NAME}: one per native operator (the bytes its
 * island holds) and one per TaskManager (the bytes every native pool of the process holds). The
 * TaskManager's gauge outlives the jobs, so an operator of a deployment can watch native memory
 * return to zero when a job ends or is cancelled.
 */
public final class MemoryGauges {
    public static final String NAME = "streamfusionNativeMemoryBytes";

    /** TaskManager groups that have the process gauge (several in one MiniCluster JVM). */
    private static final Map<TaskManagerMetricGroup, Boolean> TASK_MANAGERS =
            Collections.synchronizedMap(new WeakHashMap<>());

    private MemoryGauges() {}

    /**
     * Registers the operator's gauge in {@code operatorGroup} and, the first time for its
     * TaskManager, the process gauge in the TaskManager's group.
     */
    public static void register(MetricGroup operatorGroup, LongSupplier operatorBytes) {
        operatorGroup.gauge(NAME, (Gauge<Long>) operatorBytes::getAsLong);
        TaskManagerMetricGroup taskManager = taskManagerGroup(operatorGroup);
        if (taskManager != null && TASK_MANAGERS.putIfAbsent(taskManager, Boolean.TRUE) == null) {
            taskManager.gauge(NAME, (Gauge<Long>) NativeLib::globalMemoryBytes);
        }
    }

    /**
     * The TaskManager's metric group above an operator's, or null: in a test harness, or when this
     * class came with a job's jar rather than from the TaskManager's class path (a gauge of a job's
     * class loader would keep that loader alive after the job ended).
     */
    private static TaskManagerMetricGroup taskManagerGroup(MetricGroup operatorGroup) {
        if (MemoryGauges.class.getClassLoader() != MetricGroup.class.getClassLoader()
                || !(operatorGroup instanceof InternalOperatorMetricGroup)) {
            return null;
        }
        MetricGroup task = ((InternalOperatorMetricGroup) operatorGroup).getTaskMetricGroup();
        return task instanceof TaskMetricGroup ? ((TaskMetricGroup) task).parent().parent() : null;
    }
}
