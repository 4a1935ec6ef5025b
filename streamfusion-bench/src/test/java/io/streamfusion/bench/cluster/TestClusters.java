package io.streamfusion.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** What the cluster tests share: their cluster, and the CSV lines a job wrote. */
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
