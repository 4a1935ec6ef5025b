package io.streamfusion.connectors.nexmark;

import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;

/** The nexmark table: an insert-only scan over {@link NexmarkSource}. */
final class NexmarkTableSource implements ScanTableSource {
    private final GeneratorConfig config;

    NexmarkTableSource(GeneratorConfig config) {
        this.config = config;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        return SourceProvider.of(new NexmarkSource(config));
    }

    @Override
    public DynamicTableSource copy() {
        return new NexmarkTableSource(config);
    }

    @Override
    public String asSummaryString() {
        return "nexmark";
    }
}
