package io.streamfusion.runtime.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

/**
 * What ran natively, for a test suite run with StreamFusion installed ({@code ./sf flink-suite}):
 * when the system property {@value #FILE_PROPERTY} names a file, each planned job and each opened
 * native operator appends one line to it (several JVMs may append to one file). Off otherwise.
 */
public final class Evidence {
    public static final String FILE_PROPERTY = "streamfusion.evidence.file";

    private Evidence() {}

    /** A job was planned with {@code nativeCount} of its {@code totalCount} operators native. */
    public static void planned(int nativeCount, int totalCount) {
        append("plan " + nativeCount + " " + totalCount);
    }

    /** A native operator's subtask opened in job {@code jobId}. */
    public static void opened(String jobId, String operator) {
        append("open " + jobId + " " + operator.replace('\n', ' '));
    }

    private static synchronized void append(String line) {
        String file = System.getProperty(FILE_PROPERTY);
        if (file == null || file.isEmpty()) {
            return;
        }
        Path path = Paths.get(file);
        try {
            Files.createDirectories(path.toAbsolutePath().getParent());
            Files.write(
                    path,
                    (line + "\n").getBytes(StandardCharsets.UTF_8),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            // Evidence is a report, never a reason to fail a job.
        }
    }
}
