package io.streamfusion.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Savepoints kept in the repository as test fixtures: each was written by a native job of the code
 * before the operator-contract refactor (issue 23) and must restore on later code, natively and on
 * stock Flink. {@link SavepointFixtureTest} restores them; {@link SavepointFixtureWriter} wrote
 * them (it is not a test: rewriting them with new code would defeat their purpose).
 */
final class SavepointFixtures {
    private SavepointFixtures() {}

    /** The folder of the fixtures, relative to the module (the working folder of its tests). */
    static final Path ROOT = Paths.get("src/test/resources/savepoints");

    /**
     * One fixture: a group aggregation ({@code family} "group", {@code query} a kind of {@link
     * GroupAggregateStateTest#fixtureQuery}) or a window aggregation ("window", {@code query} a
     * window of {@code WindowAggregateStateTest.query}, with its {@code phase}), on {@code
     * backend}.
     */
    record Case(
            String name,
            String family,
            String query,
            String phase,
            String backend,
            boolean miniBatch) {
        Path dir() {
            return ROOT.resolve(name);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Case> CASES =
            List.of(
                    new Case("group-distinct", "group", "distinct", "", "rocksdb", true),
                    new Case(
                            "group-retract-min-max",
                            "group",
                            "retract-min-max",
                            "",
                            "hashmap",
                            false),
                    new Case(
                            "group-retract-first-last",
                            "group",
                            "retract-first-last",
                            "",
                            "rocksdb",
                            true),
                    new Case(
                            "window-hop-flink-state",
                            "window",
                            "HOP",
                            "TWO_PHASE",
                            "rocksdb",
                            false),
                    new Case(
                            "window-cumulate-native-state",
                            "window",
                            "CUMULATE",
                            "ONE_PHASE",
                            "hashmap",
                            false),
                    new Case(
                            "window-tumble-distinct-native-state",
                            "window",
                            "TUMBLE_DISTINCT",
                            "TWO_PHASE",
                            "hashmap",
                            false),
                    new Case("session-legacy", "window", "SESSION", "LEGACY", "hashmap", false),
                    new Case(
                            "session-tvf-distinct",
                            "window",
                            "SESSION_TVF_DISTINCT",
                            "ONE_PHASE",
                            "rocksdb",
                            false));

    /** Copies a folder tree (a savepoint) to {@code to}. */
    static void copyTree(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
