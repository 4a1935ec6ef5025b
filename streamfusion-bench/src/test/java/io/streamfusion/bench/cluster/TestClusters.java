package io.streamfusion.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** What the cluster tests share: their cluster, a job's state, and the CSV lines a job wrote. */
final class TestClusters {
    private static final Path ROOT =
            Path.of(System.getProperty("streamfusion.root", "..")).toAbsolutePath().normalize();

    private TestClusters() {}

    /**
     * A started cluster in {@code home} of the project's Flink distribution with the StreamFusion
     * jar and the project's connectors in {@code lib/}, on a free port.
     */
    static LocalCluster start(Path home, int taskManagers, int slots)
            throws IOException, InterruptedException {
        LocalCluster cluster =
                new LocalCluster(
                        home,
                        ClusterCommand.flinkHome(ROOT),
                        ClusterCommand.streamFusionJar(ROOT),
                        List.of(ClusterCommand.connectorsJar(ROOT)),
                        LocalCluster.freePort(),
                        taskManagers,
                        slots);
        cluster.start();
        return cluster;
    }

    /** How long a test waits for a job to reach a state. */
    static final long TIMEOUT_MILLIS = 180_000;

    /** The state of job {@code job} ("RUNNING", "FINISHED", ...), as the REST API shows it. */
    static String jobState(LocalCluster cluster, String job) throws Exception {
        Matcher state =
                Pattern.compile("\"state\":\"([A-Z]+)\"").matcher(cluster.rest("/jobs/" + job));
        assertThat(state.find()).isTrue();
        return state.group(1);
    }

    /** Waits until job {@code job} has ended; its final state. */
    static String awaitTerminal(LocalCluster cluster, String job) throws Exception {
        long deadline = System.currentTimeMillis() + TIMEOUT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            String state = jobState(cluster, job);
            if (List.of("FINISHED", "FAILED", "CANCELED").contains(state)) {
                return state;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("job " + job + " did not end");
    }

    /** Every line of the CSV files under {@code dir} (none before a commit), sorted. */
    static List<String> csvLines(Path dir) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.exists(dir)) {
            return lines;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (Files.isRegularFile(file) && !name.startsWith(".")) {
                    lines.addAll(Files.readAllLines(file));
                }
            }
        }
        lines.sort(null);
        return lines;
    }
}
