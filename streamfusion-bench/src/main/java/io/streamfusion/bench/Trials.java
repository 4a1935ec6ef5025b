package io.streamfusion.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The discipline every stock-vs-native runner follows between and over its timed trials. */
public final class Trials {
    private Trials() {}

    /**
     * Lets the previous job's MiniCluster finish shutting down and its garbage be collected, so
     * that neither engine's trial pays for the other's teardown (2 cores make this visible).
     */
    public static void settle() throws InterruptedException {
        System.gc();
        Thread.sleep(1000);
    }

    public static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
