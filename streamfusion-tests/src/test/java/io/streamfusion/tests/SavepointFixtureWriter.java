package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Writes the savepoint fixtures ({@link SavepointFixtures}) into {@code src/test/resources}: each a
 * native job stopped mid-way with a savepoint. Not a test (its name is outside surefire's
 * patterns); run on purpose only: {@code mvn -pl streamfusion-tests test
 * -Dtest=SavepointFixtureWriter}. The fixtures in the repository were written by the code before
 * the operator-contract refactor; they are kept, not rewritten, so that they prove later code
 * restores what earlier code wrote.
 */
class SavepointFixtureWriter {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    @Test
    void writeFixtures(@TempDir Path dir) throws Exception {
        for (SavepointFixtures.Case c : SavepointFixtures.CASES) {
            Path jobDir = dir.resolve(c.name());
            Files.createDirectories(jobDir);
            String savepoint =
                    c.family().equals("group")
                            ? GroupAggregateStateTest.takeSavepoint(
                                    GroupAggregateStateTest.fixtureQuery(c.query()),
                                    GroupAggregateStateTest.fixtureSink(c.query()),
                                    true,
                                    c.backend(),
                                    c.miniBatch(),
                                    jobDir)
                            : WindowAggregateStateTest.stopMidway(
                                    true, c.backend(), c.query(), c.phase(), jobDir, false);
            Path written =
                    Paths.get(URI.create(savepoint.endsWith("/") ? savepoint : savepoint + "/"));
            assertThat(written.resolve("_metadata")).exists();
            SavepointFixtures.copyTree(written, c.dir());
        }
    }
}
