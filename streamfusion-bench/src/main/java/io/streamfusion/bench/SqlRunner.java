package io.streamfusion.bench;

import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ./sf sql -e 'SQL' | -f file.sql [--engine native|stock] [--parallelism P] [--set k=v]...}:
 * runs statements on an embedded MiniCluster and prints their results; EXPLAIN prints the plan with
 * native operators marked and the fallback reasons.
 */
public final class SqlRunner {
    private SqlRunner() {}

    public static void main(String[] args) throws Exception {
        String script = null;
        Engines.Engine engine = Engines.Engine.NATIVE;
        int parallelism = 1;
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-e":
                    script = args[++i];
                    break;
                case "-f":
                    script =
                            new String(
                                    Files.readAllBytes(Paths.get(args[++i])),
                                    StandardCharsets.UTF_8);
                    break;
                case "--engine":
                    engine = Engines.Engine.valueOf(args[++i].toUpperCase());
                    break;
                case "--parallelism":
                    parallelism = Integer.parseInt(args[++i]);
                    break;
                case "--set":
                    String[] kv = args[++i].split("=", 2);
                    options.put(kv[0], kv[1]);
                    break;
                default:
                    usage("unknown argument " + args[i]);
            }
        }
        if (script == null) {
            usage("give -e SQL or -f FILE");
        }
        StreamTableEnvironment tEnv = Engines.create(engine, parallelism, options);
        for (String statement : splitStatements(script)) {
            TableResult result = tEnv.executeSql(statement);
            if (statement.trim().toUpperCase().startsWith("EXPLAIN")) {
                try (CloseableIterator<Row> it = result.collect()) {
                    System.out.println(it.next().getField(0));
                }
            } else {
                result.print();
            }
        }
    }

    /** Splits a script on semicolons outside quotes and comments. */
    static List<String> splitStatements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inString = false;
        for (int i = 0; i < script.length(); i++) {
            char c = script.charAt(i);
            if (!inString && c == '-' && i + 1 < script.length() && script.charAt(i + 1) == '-') {
                while (i < script.length() && script.charAt(i) != '\n') {
                    i++;
                }
                continue;
            }
            if (c == '\'') {
                inString = !inString;
            }
            if (c == ';' && !inString) {
                addStatement(statements, current);
            } else {
                current.append(c);
            }
        }
        addStatement(statements, current);
        return statements;
    }

    private static void addStatement(List<String> statements, StringBuilder current) {
        String s = current.toString().trim();
        if (!s.isEmpty()) {
            statements.add(s);
        }
        current.setLength(0);
    }

    private static void usage(String problem) {
        System.err.println("sf sql: " + problem);
        System.err.println(
                "usage: ./sf sql -e 'SQL' | -f file.sql [--engine native|stock] [--parallelism P]"
                        + " [--set key=value]...");
        System.exit(2);
    }
}
