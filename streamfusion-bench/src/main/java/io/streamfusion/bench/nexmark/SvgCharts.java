package io.streamfusion.bench.nexmark;

import java.util.List;
import java.util.Locale;

/**
 * Grouped bar charts as inline SVG, for the self-contained report: one group per query, one bar per
 * series (a configuration, or an engine of a configuration), a legend, and an optional reference
 * line.
 */
final class SvgCharts {
    private SvgCharts() {}

    /** One series of a chart: its name, colour and a value per group (null: no bar). */
    static final class Series {
        final String name;
        final String colour;
        final List<Double> values;

        Series(String name, String colour, List<Double> values) {
            this.name = name;
            this.colour = colour;
            this.values = values;
        }
    }

    /**
     * A grouped bar chart. {@code unit} "x" labels the axis as ratios and {@code reference} draws a
     * dashed line at that value (1.0: as fast as stock); labels on bars when {@code labels}.
     */
    static String bars(
            List<String> groups,
            List<Series> series,
            String unit,
            Double reference,
            boolean labels) {
        double max = reference == null ? 0 : reference * 1.2;
        for (Series s : series) {
            for (Double v : s.values) {
                if (v != null) {
                    max = Math.max(max, v * 1.1);
                }
            }
        }
        if (max <= 0) {
            max = 1;
        }
        int bar = Math.max(6, Math.min(20, 60 / Math.max(1, series.size())));
        int slot = bar * series.size() + 10;
        int left = 56;
        int height = 220;
        int legend = 18 * series.size() + 10;
        int width = left + slot * Math.max(1, groups.size()) + 10;
        StringBuilder s = start(width, height + 40 + legend, 11);
        s.append(line(left, height, width - 10, height, "#444", null))
                .append(line(left, 10, left, height, "#444", null));
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            double yy = y(v, max, height);
            s.append(line(left - 3, yy, left, yy, "#444", null));
            String label =
                    unit.equals("x") ? String.format(Locale.ROOT, "%.1fx", v) : human(v) + unit;
            s.append(text(left - 5, yy + 4, label, "end"));
        }
        if (reference != null) {
            double ry = y(reference, max, height);
            s.append(line(left, ry, width - 10, ry, "#888", "4,3"));
        }
        for (int g = 0; g < groups.size(); g++) {
            double x = left + g * slot + 5;
            for (int k = 0; k < series.size(); k++) {
                Series ser = series.get(k);
                Double v = g < ser.values.size() ? ser.values.get(g) : null;
                double bx = x + k * bar;
                if (v == null) {
                    continue;
                }
                double top = y(v, max, height);
                String value =
                        unit.equals("x") ? String.format(Locale.ROOT, "%.2fx", v) : human(v) + unit;
                s.append(
                        rect(
                                bx,
                                top,
                                bar - 1,
                                height - top,
                                ser.colour,
                                groups.get(g) + " " + ser.name + ": " + value));
                if (labels) {
                    s.append(
                            String.format(
                                    Locale.ROOT,
                                    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\""
                                            + " transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
                                    bx + bar / 2.0 + 3,
                                    top - 3,
                                    bx + bar / 2.0 + 3,
                                    top - 3,
                                    escape(
                                            unit.equals("x")
                                                    ? String.format(Locale.ROOT, "%.2f", v)
                                                    : human(v))));
                }
            }
            s.append(text(x + bar * series.size() / 2.0, height + 15, groups.get(g), "middle"));
        }
        for (int k = 0; k < series.size(); k++) {
            double ly = height + 30 + k * 18;
            s.append(rect(left, ly, 12, 12, series.get(k).colour, series.get(k).name))
                    .append(text(left + 18, ly + 10, series.get(k).name, "start"));
        }
        return s.append("</svg>\n").toString();
    }

    /** The opening tag of an SVG of {@code width} × {@code height} pixels, sans-serif text. */
    static StringBuilder start(int width, int height, int fontSize) {
        return new StringBuilder(
                String.format(
                        Locale.ROOT,
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\""
                                + " font-size=\"%d\">\n",
                        width,
                        height,
                        width,
                        height,
                        fontSize));
    }

    private static double y(double value, double max, int height) {
        return height - value / max * (height - 10);
    }

    static String line(double x1, double y1, double x2, double y2, String color, String dash) {
        return String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>\n",
                x1,
                y1,
                x2,
                y2,
                color,
                dash == null ? "" : " stroke-dasharray=\"" + dash + "\"");
    }

    static String rect(double x, double y, double w, double h, String color, String title) {
        return String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
                        + " fill=\"%s\"><title>%s</title></rect>\n",
                x,
                y,
                w,
                Math.max(0, h),
                color,
                escape(title));
    }

    static String text(double x, double y, String text, String anchor) {
        return String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
                x,
                y,
                anchor,
                escape(text));
    }

    static String human(double value) {
        if (value >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", value / 1e6);
        }
        if (value >= 1e3) {
            return String.format(Locale.ROOT, "%.1fK", value / 1e3);
        }
        if (value >= 10) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    static String escape(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
