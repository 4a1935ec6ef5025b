package io.streamfusion.bench.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.annotation.Nullable;

/**
 * A standalone Flink session cluster of the distribution as shipped, on loopback: one JobManager
 * and {@code taskManagers} TaskManagers, each a JVM process of its own started from Flink's entry
 * point classes with the distribution's {@code lib/*} on the class path (the distribution's jars
 * come from PyPI's apache-flink-libraries, which has no start scripts) and this cluster's {@code
 * conf/config.yaml}. With a StreamFusion jar, that jar is in {@code lib/} beside Flink's planner
 * loader: the drop-in install. Processes write their logs and pids under the cluster's home, so
 * another process ({@code ./sf cluster stop}) can stop them.
 */
public final class LocalCluster {
    /** JVM flags Flink's own start scripts pass on Java 17 (its config's env.java.opts.all). */
    private static final List<String> JAVA_17_OPENS =
            List.of(
                    "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
                    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.text=ALL-UNNAMED",
                    "--add-opens=java.base/java.time=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private final Path home;
    private final Path flinkHome;
    @Nullable private final Path streamFusionJar;
    private final List<Path> connectorJars;
    private final int restPort;
    private final int taskManagers;
    private final int slots;
    private final HttpClient http = HttpClient.newHttpClient();

    /**
     * A cluster living in {@code home}, of the distribution in {@code flinkHome} (its {@code lib/},
     * {@code opt/}), with {@code streamFusionJar} in its {@code lib/} (null: stock Flink) and
     * {@code connectorJars} (e.g. the Nexmark source), its REST API and Web UI on {@code restPort}.
     */
    public LocalCluster(
            Path home,
            Path flinkHome,
            @Nullable Path streamFusionJar,
            List<Path> connectorJars,
            int restPort,
            int taskManagers,
            int slots) {
        this.home = home.toAbsolutePath();
        this.connectorJars = List.copyOf(connectorJars);
        this.flinkHome = flinkHome.toAbsolutePath();
        this.streamFusionJar = streamFusionJar == null ? null : streamFusionJar.toAbsolutePath();
        this.restPort = restPort;
        this.taskManagers = taskManagers;
        this.slots = slots;
    }

    public String webUi() {
        return "http://localhost:" + restPort;
    }

    public Path home() {
        return home;
    }

    /**
     * Writes the cluster's configuration and {@code lib/}, then starts it and waits until every
     * TaskManager registered.
     */
    public void start() throws IOException, InterruptedException {
        if (isRunning()) {
            throw new IllegalStateException("a cluster of " + home + " is running: stop it first");
        }
        Files.createDirectories(home.resolve("log"));
        Files.createDirectories(home.resolve("pids"));
        writeConf();
        writeLib();
        launch(
                "jobmanager",
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                List.of("-Xmx512m"),
                List.of());
        awaitRest("/overview", body -> true);
        for (int i = 1; i <= taskManagers; i++) {
            launchTaskManager(i);
        }
        awaitRest("/overview", body -> intField(body, "taskmanagers") >= taskManagers);
    }

    /** Starts one more TaskManager (e.g. in place of a killed one); returns its number. */
    public int addTaskManager() throws IOException, InterruptedException {
        int number = 1;
        while (Files.exists(home.resolve("pids/taskmanager-" + number + ".pid"))) {
            number++;
        }
        launchTaskManager(number);
        return number;
    }

    private void launchTaskManager(int number) throws IOException {
        launch(
                "taskmanager-" + number,
                "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                List.of("-Xmx768m", "-Xms768m", "-XX:MaxDirectMemorySize=512m"),
                List.of("-D", "taskmanager.resource-id=tm-" + number));
    }

    private void writeConf() throws IOException {
        Path conf = home.resolve("conf");
        Files.createDirectories(conf);
        String yaml =
                String.join(
                        "\n",
                        "# Written by StreamFusion's LocalCluster: a session cluster on loopback.",
                        "jobmanager.rpc.address: localhost",
                        // A free port, not Flink's 6123: a test cluster beside a user's.
                        "jobmanager.rpc.port: " + freePort(),
                        "jobmanager.bind-host: localhost",
                        "taskmanager.bind-host: localhost",
                        "taskmanager.host: localhost",
                        "rest.address: localhost",
                        "rest.bind-address: localhost",
                        "rest.port: " + restPort,
                        "execution.target: remote",
                        "jobmanager.memory.process.size: 1024m",
                        // The TaskManager's memory, given in full as Flink's start scripts would
                        // compute it (no scripts here): heap 128m framework + 512m task.
                        "taskmanager.cpu.cores: 2",
                        "taskmanager.memory.framework.heap.size: 128m",
                        "taskmanager.memory.task.heap.size: 512m",
                        "taskmanager.memory.framework.off-heap.size: 128m",
                        "taskmanager.memory.task.off-heap.size: 256m",
                        "taskmanager.memory.network.min: 64m",
                        "taskmanager.memory.network.max: 64m",
                        "taskmanager.memory.managed.size: 256m",
                        "taskmanager.memory.jvm-metaspace.size: 256m",
                        "taskmanager.memory.jvm-overhead.min: 192m",
                        "taskmanager.memory.jvm-overhead.max: 192m",
                        "taskmanager.numberOfTaskSlots: " + slots,
                        "parallelism.default: " + Math.min(2, taskManagers * slots),
                        "execution.checkpointing.dir: file://" + home.resolve("checkpoints"),
                        "execution.checkpointing.savepoint-dir: file://"
                                + home.resolve("savepoints"),
                        "restart-strategy.type: fixed-delay",
                        // Enough attempts to outlast the heartbeat timeout after a TaskManager
                        // died: until then its slots still look free.
                        "restart-strategy.fixed-delay.attempts: 30",
                        "restart-strategy.fixed-delay.delay: 1 s",
                        // The Web UI and REST API fetch metrics every second (default 10 s).
                        "metrics.fetcher.update-interval: 1000",
                        "heartbeat.timeout: 10000",
                        "heartbeat.interval: 2000",
                        "");
        Files.writeString(conf.resolve("config.yaml"), yaml);
        String log4j =
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = file",
                        "appender.file.name = file",
                        "appender.file.type = File",
                        "appender.file.fileName = ${sys:log.file}",
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
                        "");
        for (String name :
                List.of("log4j.properties", "log4j-cli.properties", "log4j-console.properties")) {
            Files.writeString(conf.resolve(name), log4j);
        }
    }

    /** The distribution's lib/ as linked files, with the StreamFusion jar beside them. */
    private void writeLib() throws IOException {
        Path lib = home.resolve("lib");
        if (Files.exists(lib)) {
            try (Stream<Path> old = Files.list(lib)) {
                for (Path p : (Iterable<Path>) old::iterator) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(lib);
        try (Stream<Path> jars = Files.list(flinkHome.resolve("lib"))) {
            for (Path jar : (Iterable<Path>) jars::iterator) {
                Files.createSymbolicLink(lib.resolve(jar.getFileName()), jar);
            }
        }
        if (streamFusionJar != null) {
            Files.copy(streamFusionJar, lib.resolve(streamFusionJar.getFileName()));
        }
        for (Path jar : connectorJars) {
            Files.copy(jar, lib.resolve(jar.getFileName()));
        }
    }

    /**
     * The class path of Flink's scripts: lib/'s jars in name order, flink-dist last (which is what
     * puts the StreamFusion jar before the planner loader's).
     */
    private String classPath() throws IOException {
        List<String> jars = new ArrayList<>();
        String dist = null;
        try (Stream<Path> files = Files.list(home.resolve("lib"))) {
            for (Path jar : (Iterable<Path>) files.sorted()::iterator) {
                if (jar.getFileName().toString().startsWith("flink-dist")) {
                    dist = jar.toString();
                } else {
                    jars.add(jar.toString());
                }
            }
        }
        if (dist != null) {
            jars.add(dist);
        }
        return String.join(":", jars);
    }

    private void launch(String name, String mainClass, List<String> jvm, List<String> args)
            throws IOException {
        List<String> withConf = new ArrayList<>(List.of("--configDir", conf().toString()));
        withConf.addAll(args);
        launch(name, classPath(), mainClass, jvm, withConf);
    }

    private Path conf() {
        return home.resolve("conf");
    }

    private void launch(
            String name, String classPath, String mainClass, List<String> jvm, List<String> args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(JAVA_17_OPENS);
        command.addAll(jvm);
        command.add("-Dlog.file=" + home.resolve("log/" + name + ".log"));
        command.add("-Dlog4j.configurationFile=file:" + home.resolve("conf/log4j.properties"));
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectErrorStream(true);
        builder.redirectOutput(home.resolve("log/" + name + ".out").toFile());
        builder.environment().put("FLINK_CONF_DIR", home.resolve("conf").toString());
        Process process = builder.start();
        Files.writeString(home.resolve("pids/" + name + ".pid"), Long.toString(process.pid()));
    }

    /**
     * Starts Flink's SQL Gateway (its REST endpoint on {@code port}, {@code opt/}'s gateway jar and
     * the cluster's {@code lib/} on its class path, as Flink's sql-gateway.sh puts them) for this
     * cluster, and returns its address once it answers.
     */
    public String startSqlGateway(int port) throws IOException, InterruptedException {
        launch(
                "sql-gateway",
                String.join(":", optJar("flink-sql-gateway"), classPath()),
                "org.apache.flink.table.gateway.SqlGateway",
                List.of("-Xmx512m"),
                List.of(
                        "-Dsql-gateway.endpoint.rest.address=localhost",
                        "-Dsql-gateway.endpoint.rest.bind-address=localhost",
                        "-Dsql-gateway.endpoint.rest.port=" + port));
        String address = "http://localhost:" + port;
        await(address + "/v1/info", body -> body.contains("productName"));
        return address;
    }

    /** Cancels job {@code job} (REST), without waiting for it to end. */
    public void cancel(String job) throws IOException, InterruptedException {
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(
                                        URI.create(webUi() + "/jobs/" + job + "?mode=cancel"))
                                .method("PATCH", HttpRequest.BodyPublishers.noBody())
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) {
            throw new IOException(
                    "cancel " + job + ": HTTP " + response.statusCode() + " " + response.body());
        }
    }

    /**
     * The value of metric {@code name} of TaskManager {@code resourceId} ("tm-1") as the REST API
     * shows it, or null while the JobManager has not fetched it.
     */
    @Nullable
    public String taskManagerMetric(String resourceId, String name)
            throws IOException, InterruptedException {
        Matcher value =
                Pattern.compile("\"value\":\"([^\"]*)\"")
                        .matcher(rest("/taskmanagers/" + resourceId + "/metrics?get=" + name));
        return value.find() ? value.group(1) : null;
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The live processes of this cluster, by name ("jobmanager", "taskmanager-1", ...). */
    public List<ProcessHandle> processes() throws IOException {
        List<ProcessHandle> live = new ArrayList<>();
        Path pids = home.resolve("pids");
        if (!Files.isDirectory(pids)) {
            return live;
        }
        try (Stream<Path> files = Files.list(pids)) {
            for (Path file : (Iterable<Path>) files.sorted()::iterator) {
                long pid = Long.parseLong(Files.readString(file).trim());
                ProcessHandle.of(pid).filter(ProcessHandle::isAlive).ifPresent(live::add);
            }
        }
        return live;
    }

    public boolean isRunning() throws IOException {
        return !processes().isEmpty();
    }

    /** The process of TaskManager {@code i} (1-based), if alive. */
    public Optional<ProcessHandle> taskManager(int i) throws IOException {
        Path file = home.resolve("pids/taskmanager-" + i + ".pid");
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        return ProcessHandle.of(Long.parseLong(Files.readString(file).trim()))
                .filter(ProcessHandle::isAlive);
    }

    /** Stops every process of the cluster: SIGTERM, then SIGKILL after 30 s. */
    public void stop() throws IOException, InterruptedException {
        List<ProcessHandle> live = processes();
        live.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (ProcessHandle process : live) {
            while (process.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
        try (Stream<Path> files = Files.list(home.resolve("pids"))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.delete(file);
            }
        }
    }

    /** What the SQL Client printed for a script, and how it exited. */
    public static final class SqlResult {
        public final int exitCode;
        public final String output;

        SqlResult(int exitCode, String output) {
            this.exitCode = exitCode;
            this.output = output;
        }
    }

    /**
     * Runs {@code script} with Flink's SQL Client ({@code opt/flink-sql-client}, embedded mode,
     * {@code -f}) against this cluster, as a user would, and returns what it printed.
     */
    public SqlResult sql(Path script) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(JAVA_17_OPENS);
        command.add("-Xmx512m");
        command.add("-Dlog.file=" + home.resolve("log/sql-client.log"));
        command.add("-Dlog4j.configurationFile=file:" + home.resolve("conf/log4j-cli.properties"));
        command.add("-cp");
        command.add(
                String.join(
                        ":",
                        optJar("flink-sql-client"),
                        optJar("flink-sql-gateway"),
                        optJar("flink-python"),
                        classPath()));
        command.add("org.apache.flink.table.client.SqlClient");
        command.add("embedded");
        command.add("-f");
        command.add(script.toAbsolutePath().toString());
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectErrorStream(true);
        builder.environment().put("FLINK_CONF_DIR", home.resolve("conf").toString());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new SqlResult(process.waitFor(), output);
    }

    /**
     * The jar of {@code opt/} whose name starts with {@code prefix}. The SQL Client runs on the SQL
     * Gateway's classes and reads its Python options with flink-python's (Flink's sql-client.sh
     * puts those jars on its path too).
     */
    private String optJar(String prefix) throws IOException {
        try (Stream<Path> files = Files.list(flinkHome.resolve("opt"))) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix))
                    .findFirst()
                    .orElseThrow(
                            () ->
                                    new IOException(
                                            "no " + prefix + " jar in " + flinkHome.resolve("opt")))
                    .toString();
        }
    }

    /** GET of the REST API path {@code path} ("/jobs/overview"), its body. */
    public String rest(String path) throws IOException, InterruptedException {
        return get(webUi() + path);
    }

    private String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(
                    "GET " + url + ": HTTP " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }

    /** The id of the job that started last on this cluster, null if none. */
    public String lastJobId() throws IOException, InterruptedException {
        Matcher m =
                Pattern.compile("\"jid\":\"([0-9a-f]+)\"[^}]*?\"start-time\":(\\d+)")
                        .matcher(rest("/jobs/overview"));
        String last = null;
        long lastStart = -1;
        while (m.find()) {
            long start = Long.parseLong(m.group(2));
            if (start > lastStart) {
                lastStart = start;
                last = m.group(1);
            }
        }
        return last;
    }

    private void awaitRest(String path, java.util.function.Predicate<String> ready)
            throws IOException, InterruptedException {
        await(webUi() + path, ready);
    }

    private void await(String url, java.util.function.Predicate<String> ready)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!isRunning()) {
                throw new IOException("the cluster's processes ended; see " + home.resolve("log"));
            }
            try {
                if (ready.test(get(url))) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new IOException(
                "the cluster did not come up within "
                        + START_TIMEOUT
                        + "; see "
                        + home.resolve("log"),
                last);
    }

    /** A port nothing listens on now (for a cluster beside others). */
    static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A top-level integer field of a JSON object ("taskmanagers": 2). */
    static int intField(String json, String field) {
        Matcher m =
                Pattern.compile("\"" + Pattern.quote(field) + "\"\\s*:\\s*(-?\\d+)").matcher(json);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
