package io.streamfusion.connectors.nexmark;

/**
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014), written from the published algorithm. The nexmark generator reseeds it for every event
 * from the event id, which makes each event a pure function of its id; the derived draws are
 * specified exactly here so that a C++ generator can reproduce them bit for bit.
 */
final class SplitMix64 {
    static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    SplitMix64(long seed) {
        this.state = seed;
    }

    /** Seeds with mix64(globalSeed ^ key * gamma), the per-event scheme of nexmark.md §3.9. */
    void reseed(long globalSeed, long key) {
        state = mix64(globalSeed ^ (key * GOLDEN_GAMMA));
    }

    long nextLong() {
        state += GOLDEN_GAMMA;
        return mix64(state);
    }

    /**
     * Uniform in [0, bound) for 0 < bound <= 2^31 - 1, by multiply-shift of the upper 32 bits (no
     * rejection; the bias is below bound / 2^32 and documented as part of the scheme).
     */
    int nextInt(int bound) {
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }

    /** Uniform in [0, bound) for bound > 0; bounds beyond int use an unsigned remainder. */
    long nextLong(long bound) {
        if (bound <= Integer.MAX_VALUE) {
            return nextInt((int) bound);
        }
        return Long.remainderUnsigned(nextLong(), bound);
    }

    /** Uniform in [0, 2^24): the resolution of the price distribution. */
    int next24() {
        return (int) (nextLong() >>> 40);
    }

    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
