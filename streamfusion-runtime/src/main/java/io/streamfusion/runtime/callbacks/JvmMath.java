package io.streamfusion.runtime.callbacks;

import io.streamfusion.runtime.metrics.NativeMetrics;

/**
 * java.lang.Math for native pipelines. Flink's generated code computes SIN, COS, TAN, COT, EXP, LN,
 * LOG, LOG10, LOG2, POWER, ASIN, ACOS, ATAN, ATAN2, SINH, COSH and TANH with java.lang.Math, whose
 * results come from HotSpot's CPU-specific intrinsic stubs or from fdlibm and cannot be reproduced
 * bit for bit by a C library. Native code hands a batch's operands to this class in one call (never
 * per row) and keeps the island native around the call; the expressions are those of Flink's
 * SqlFunctionUtils, so the results are Flink's by construction.
 *
 * <p>Called from native code only (jni_entry.cc), on the task thread inside a pipeline call.
 */
final class JvmMath {

    private JvmMath() {}

    /**
     * out[i] = op(a[i]) or op(a[i], b[i]) for i < n; {@code op} is numbered as JvmMathOp in
     * native/src/streamfusion/expression/jvm_calls.h.
     */
    static void apply(int op, double[] a, double[] b, int n, double[] out) {
        NativeMetrics.addJvmMathCall();
        switch (op) {
            case 0:
                for (int i = 0; i < n; i++) out[i] = Math.sin(a[i]);
                break;
            case 1:
                for (int i = 0; i < n; i++) out[i] = Math.cos(a[i]);
                break;
            case 2:
                for (int i = 0; i < n; i++) out[i] = Math.tan(a[i]);
                break;
            case 3: // SqlFunctionUtils.cot
                for (int i = 0; i < n; i++) out[i] = 1.0d / Math.tan(a[i]);
                break;
            case 4:
                for (int i = 0; i < n; i++) out[i] = Math.exp(a[i]);
                break;
            case 5: // SqlFunctionUtils.log(double)
                for (int i = 0; i < n; i++) out[i] = Math.log(a[i]);
                break;
            case 6:
                for (int i = 0; i < n; i++) out[i] = Math.log10(a[i]);
                break;
            case 7: // SqlFunctionUtils.log2
                for (int i = 0; i < n; i++) out[i] = Math.log(a[i]) / Math.log(2);
                break;
            case 8: // SqlFunctionUtils.log(double base, double x)
                for (int i = 0; i < n; i++) out[i] = Math.log(b[i]) / Math.log(a[i]);
                break;
            case 9:
                for (int i = 0; i < n; i++) out[i] = Math.pow(a[i], b[i]);
                break;
            case 10:
                for (int i = 0; i < n; i++) out[i] = Math.asin(a[i]);
                break;
            case 11:
                for (int i = 0; i < n; i++) out[i] = Math.acos(a[i]);
                break;
            case 12:
                for (int i = 0; i < n; i++) out[i] = Math.atan(a[i]);
                break;
            case 13:
                for (int i = 0; i < n; i++) out[i] = Math.atan2(a[i], b[i]);
                break;
            case 14:
                for (int i = 0; i < n; i++) out[i] = Math.sinh(a[i]);
                break;
            case 15:
                for (int i = 0; i < n; i++) out[i] = Math.cosh(a[i]);
                break;
            case 16:
                for (int i = 0; i < n; i++) out[i] = Math.tanh(a[i]);
                break;
            default:
                throw new IllegalArgumentException("unknown java.lang.Math function #" + op);
        }
    }
}
