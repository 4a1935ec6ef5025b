package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The savepoint fixtures ({@link SavepointFixtures}), written by native jobs of the code before the
 * operator-contract refactor, restore on this code: natively at parallelism 3 and on stock Flink at
 * parallelism 2, each run to the end of its source with results equal to an uninterrupted stock
 * run. Operator uids, state names and layouts must stay as they were for this to hold.
 */
class SavepointFixtureTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (SavepointFixtures.Case c : SavepointFixtures.CASES) {
            cases.add(Arguments.of(c, true));
            cases.add(Arguments.of(c, false));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, native {1}")
    @MethodSource("cases")
    void fixtureRestores(SavepointFixtures.Case c, boolean restoreNative, @TempDir Path dir)
            throws Exception {
        assertThat(c.dir().resolve("_metadata")).as("the fixture's savepoint").exists();
        // A copy: restoring never writes to a savepoint, but the fixtures stay untouched anyway.
        Path savepoint = dir.resolve(c.name());
        SavepointFixtures.copyTree(c.dir(), savepoint);
        assertThat(Files.exists(savepoint.resolve("_metadata"))).isTrue();
        String path = savepoint.toUri().toString();
        int parallelism = restoreNative ? 3 : 2;
        if (c.family().equals("group")) {
            GroupAggregateStateTest.assertRestoresToStockResult(
                    GroupAggregateStateTest.fixtureQuery(c.query()),
                    GroupAggregateStateTest.fixtureSink(c.query()),
                    path,
                    restoreNative,
                    c.backend(),
                    parallelism,
                    c.miniBatch());
        } else {
            WindowAggregateStateTest.assertRestoresToStockResult(
                    c.query(), c.phase(), path, restoreNative, c.backend(), parallelism);
        }
    }
}
