package io.streamfusion.bench;

import io.streamfusion.runtime.jni.NativeLib;

/** {@code ./sf functions}: the native function registry (name, signature, doc), one per line. */
public final class FunctionList {
    private FunctionList() {}

    public static void main(String[] args) {
        String[] lines = NativeLib.listFunctions().split("\n");
        for (String line : lines) {
            String[] f = line.split("\t", 3);
            System.out.printf("%-22s %-48s %s%n", f[0], f[1], f[2]);
        }
        System.out.println(lines.length + " native functions");
    }
}
