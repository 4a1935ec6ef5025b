package io.streamfusion.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code ./sf cluster start|stop|status|sql}: a local standalone Flink 2.2.1 cluster of the
 * distribution as shipped with the StreamFusion jar dropped into its {@code lib/} ({@link
 * LocalCluster}), with the project's Nexmark source beside it, Flink's SQL Gateway for it, and
 * Flink's SQL Client against it.
 *
 * <pre>
 * start [--stock] [--port P] [--gateway-port G] [--taskmanagers N] [--slots S]
 * stop | status
 * sql -f FILE | -e SQL
 * </pre>
 */
public final class ClusterCommand {
    private ClusterCommand() {}

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("streamfusion.root", ".")).toAbsolutePath();
        Path home = root.resolve(".cache/cluster");
        Path flinkHome = flinkHome(root);
        String command = args.length == 0 ? "status" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        int port = Integer.parseInt(option(rest, "--port", "8081"));
        int gatewayPort = Integer.parseInt(option(rest, "--gateway-port", "8083"));
        int taskManagers = Integer.parseInt(option(rest, "--taskmanagers", "2"));
        int slots = Integer.parseInt(option(rest, "--slots", "2"));
        boolean stock = Arrays.asList(rest).contains("--stock");
        LocalCluster cluster =
                new LocalCluster(
                        home,
                        flinkHome,
                        stock ? null : streamFusionJar(root),
                        List.of(connectorsJar(root)),
                        port(home, port),
                        taskManagers,
                        slots);
        switch (command) {
            case "start":
                cluster.start();
                Files.writeString(home.resolve("rest.port"), Integer.toString(port));
                String gateway = cluster.startSqlGateway(gatewayPort);
                System.out.println(
                        "Flink "
                                + (stock ? "(stock)" : "with StreamFusion")
                                + ": a JobManager and "
                                + taskManagers
                                + " TaskManagers of "
                                + slots
                                + " slots. Web UI: "
                                + cluster.webUi()
                                + "  SQL Gateway: "
                                + gateway
                                + "  (logs: "
                                + home.resolve("log")
                                + ")");
                break;
            case "stop":
                cluster.stop();
                System.out.println("stopped");
                break;
            case "status":
                System.out.println(
                        cluster.isRunning()
                                ? "running: " + cluster.webUi() + " " + cluster.rest("/overview")
                                : "not running");
                break;
            case "sql":
                if (!cluster.isRunning()) {
                    throw new IllegalStateException("no cluster runs: ./sf cluster start");
                }
                Path script = script(rest, home);
                LocalCluster.SqlResult result = cluster.sql(script);
                System.out.print(result.output);
                System.exit(result.exitCode);
                break;
            default:
                throw new IllegalArgumentException("usage: ./sf cluster start|stop|status|sql");
        }
    }

    /** The port of the running cluster (a later command need not repeat --port). */
    private static int port(Path home, int given) throws IOException {
        Path file = home.resolve("rest.port");
        if (given == 8081 && Files.exists(file)) {
            return Integer.parseInt(Files.readString(file).trim());
        }
        return given;
    }

    /**
     * The script the SQL Client runs: the file given with -f or the statement given with -e, after
     * a SET of the tableau result mode, the only one the SQL Client accepts for a SELECT outside
     * its interactive mode (a script may SET another).
     */
    private static Path script(String[] args, Path home) throws IOException {
        String file = option(args, "-f", null);
        String sql = file != null ? Files.readString(Path.of(file)) : option(args, "-e", null);
        if (sql == null) {
            throw new IllegalArgumentException("usage: ./sf cluster sql -f FILE | -e SQL");
        }
        Path script = home.resolve("statement.sql");
        Files.writeString(
                script,
                "SET 'sql-client.execution.result-mode' = 'tableau';\n"
                        + (sql.strip().endsWith(";") ? sql + "\n" : sql + ";\n"));
        return script;
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    /** The Flink distribution's jars ./sf installs (setup_flink_dist). */
    static Path flinkHome(Path root) {
        return root.resolve(".cache/flink-" + System.getProperty("flink.version", "2.2.1"));
    }

    /** The deployable StreamFusion jar (streamfusion-dist, natives inside). */
    static Path streamFusionJar(Path root) throws IOException {
        return jar(root.resolve("streamfusion-dist/target"), "flink-streamfusion-");
    }

    /** The jar of the project's connectors (the Nexmark source), for jobs on the cluster. */
    static Path connectorsJar(Path root) throws IOException {
        return jar(root.resolve("streamfusion-connectors/target"), "streamfusion-connectors-");
    }

    private static Path jar(Path target, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(
                            p -> {
                                String name = p.getFileName().toString();
                                return name.startsWith(prefix) && name.endsWith(".jar");
                            })
                    .findFirst()
                    .orElseThrow(
                            () ->
                                    new IOException(
                                            "no "
                                                    + prefix
                                                    + "*.jar in "
                                                    + target
                                                    + ": ./sf build"));
        }
    }
}
