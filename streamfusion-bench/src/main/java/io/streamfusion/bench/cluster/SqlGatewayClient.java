package io.streamfusion.bench.cluster;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A client of Flink's SQL Gateway REST API (v1), as a user's tool speaks to it: sessions with their
 * properties, statements, and their results row by row. Each result row is the list of its fields
 * as text.
 */
public final class SqlGatewayClient implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private final String base;
    private final String session;
    private final HttpClient http = HttpClient.newHttpClient();

    /** Opens a session on the gateway at {@code address} with {@code properties} set in it. */
    public SqlGatewayClient(String address, Map<String, String> properties)
            throws IOException, InterruptedException {
        this.base = address + "/v1";
        ObjectNode body = JSON.createObjectNode();
        ObjectNode props = body.putObject("properties");
        properties.forEach(props::put);
        this.session = send("POST", base + "/sessions", body).get("sessionHandle").asText();
    }

    /**
     * Runs {@code statement} and returns its result's rows (for an INSERT without dml-sync, the
     * job's id; for EXPLAIN, the plan); a failure is an IOException with the gateway's errors.
     */
    public List<List<String>> execute(String statement) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("statement", statement);
        String operation =
                send("POST", base + "/sessions/" + session + "/statements", body)
                        .get("operationHandle")
                        .asText();
        List<List<String>> rows = new ArrayList<>();
        String next = "/sessions/" + session + "/operations/" + operation + "/result/0";
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (next != null) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no result of \"" + statement + "\" within " + TIMEOUT);
            }
            JsonNode page = send("GET", base + next, null);
            String type = page.path("resultType").asText();
            if (type.equals("NOT_READY")) {
                Thread.sleep(50);
                continue;
            }
            for (JsonNode row : page.path("results").path("data")) {
                List<String> fields = new ArrayList<>();
                for (JsonNode field : row.path("fields")) {
                    fields.add(field.isNull() ? null : field.asText());
                }
                rows.add(fields);
            }
            next =
                    type.equals("EOS") || !page.hasNonNull("nextResultUri")
                            ? null
                            : page.get("nextResultUri").asText().replaceFirst("^/v1", "");
        }
        return rows;
    }

    /** The first field of the first row of {@code statement}'s result. */
    public String executeSingle(String statement) throws IOException, InterruptedException {
        List<List<String>> rows = execute(statement);
        if (rows.isEmpty() || rows.get(0).isEmpty()) {
            throw new IOException("\"" + statement + "\" returned no rows");
        }
        return rows.get(0).get(0);
    }

    private JsonNode send(String method, String url, JsonNode body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(60))
                        .header("Content-Type", "application/json");
        request.method(
                method,
                body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        HttpResponse<String> response =
                http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(
                    method
                            + " "
                            + url
                            + ": HTTP "
                            + response.statusCode()
                            + ": "
                            + rootCause(response.body()));
        }
        return JSON.readTree(response.body());
    }

    /** The innermost "Caused by" of the gateway's error body, or the body itself. */
    private static String rootCause(String body) {
        String cause = body;
        try {
            for (JsonNode error : JSON.readTree(body).path("errors")) {
                for (String line : error.asText().split("\n")) {
                    if (line.startsWith("Caused by: ")) {
                        cause = line.substring("Caused by: ".length());
                    }
                }
            }
        } catch (IOException e) {
            // not JSON: the body as it is
        }
        return cause;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        send("DELETE", base + "/sessions/" + session, null);
    }
}
