package io.streamfusion.runtime.island;

import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.TableStreamOperator;

/**
 * Stands where a Flink operator stood that a native island now runs, and passes every record,
 * watermark and watermark status on unchanged. It keeps the job graph the shape of stock Flink's:
 * without explicit uids (Flink's default, {@code table.exec.uid.generation=PLAN_ONLY}, for a job
 * not compiled into a plan) Flink derives each operator's id from its place in the graph (its
 * position in a walk from the sources, its chained outputs and its inputs' ids), so an island that
 * took the place of two operators would give every operator after it another id than stock Flink
 * gives, and a savepoint would no longer find their state. Chained, stateless and a single call per
 * record.
 */
public final class IslandPlaceholderOperator extends TableStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<RowData> element) {
        output.collect(element);
    }
}
