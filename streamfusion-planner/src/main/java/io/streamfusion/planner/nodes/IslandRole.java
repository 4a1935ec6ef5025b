package io.streamfusion.planner.nodes;

/**
 * What a native node may be in an island, which the planner forms by these roles alone (never by
 * node classes): it follows forward edges from each node to its only consumer and joins what the
 * roles allow into one island, run by one shell.
 */
public enum IslandRole {
    /** Joins no island of others. */
    NONE,
    /** Its output for a batch depends on that batch alone (a Calc): anywhere in an island. */
    STATELESS,
    /** Generates watermarks: one per island, with only stateless members before it. */
    WATERMARK,
    /**
     * The local phase of a two-phase aggregation: the last member of its island (an exchange
     * follows it), which it runs.
     */
    LOCAL,
    /**
     * A keyed stateful operator: the first member of its island (an exchange precedes it), which it
     * runs; stateless members may follow it.
     */
    KEYED
}
