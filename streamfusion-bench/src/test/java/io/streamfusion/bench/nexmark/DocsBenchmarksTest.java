package io.streamfusion.bench.nexmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * The suite tables of docs/benchmarks.md are generated from the records committed under
 * docs/benchmarks/, not typed: after new records, {@code ./sf bench report docs/benchmarks --out
 * docs/benchmarks --markdown docs/benchmarks.md} makes this pass again.
 */
class DocsBenchmarksTest {
    @Test
    void theGeneratedBlockIsTheCommittedRecords() throws Exception {
        Path docs = Paths.get("..", "docs").toAbsolutePath().normalize();
        Path data = docs.resolve("benchmarks");
        SuiteReport report = SuiteReport.of(List.of(data), r -> true);
        assertFalse(report.configurations.isEmpty(), "records under " + data);
        String block = SuiteReport.markdownBlock(docs.resolve("benchmarks.md"));
        assertNotNull(block, "docs/benchmarks.md has a generated block");
        assertEquals(
                report.markdown(docs, data.resolve("flames")),
                block,
                "docs/benchmarks.md is stale: run ./sf bench report docs/benchmarks --out"
                        + " docs/benchmarks --markdown docs/benchmarks.md");
    }
}
