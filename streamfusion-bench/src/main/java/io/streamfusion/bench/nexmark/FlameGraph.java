package io.streamfusion.bench.nexmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An icicle-style flame graph (root at the top, callees below) of collapsed stacks as one
 * self-contained SVG: frame width is its share of samples, colour its {@link Profiles} category,
 * full name and share on hover. Frames narrower than {@link #MIN_SHARE} of all samples are left
 * out, which keeps the SVG small enough to commit.
 */
final class FlameGraph {
    static final double MIN_SHARE = 0.01;
    private static final int WIDTH = 1200;
    private static final int ROW = 15;
    private static final int MAX_DEPTH = 90;

    /** Colours of {@link Profiles#CATEGORIES}, in that order; unnamed frames are light grey. */
    static final List<String> COLOURS =
            List.of(
                    "#2b8cbe", // native engine
                    "#f28e2b", // transposes
                    "#ffbe7d", // StreamFusion shells
                    "#e15759", // state backend
                    "#76b7b2", // Flink
                    "#9c755f", // GC
                    "#b07aa1", // JIT compiler
                    "#bab0ac"); // other

    private static final class Node {
        final String name;
        long samples;
        final Map<String, Node> children = new LinkedHashMap<>();

        Node(String name) {
            this.name = name;
        }
    }

    private FlameGraph() {}

    /** The SVG of a collapsed-stacks file, titled {@code title}. */
    static String render(Path collapsed, String title) throws IOException {
        Node root = new Node("all");
        for (String line : Files.readAllLines(collapsed, StandardCharsets.UTF_8)) {
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                continue;
            }
            long count = Long.parseLong(line.substring(space + 1).trim());
            root.samples += count;
            Node node = root;
            for (String frame : line.substring(0, space).split(";")) {
                node = node.children.computeIfAbsent(frame, Node::new);
                node.samples += count;
            }
        }
        List<String> rects = new ArrayList<>();
        int[] depth = {0};
        draw(root, 0, 0, WIDTH, root.samples, rects, depth);
        int height = (depth[0] + 1) * ROW + 40;
        StringBuilder s =
                SvgCharts.start(WIDTH, height, 10)
                        .append("<style>rect{stroke:#fff;stroke-width:0.5}</style>\n");
        s.append(
                String.format(
                        Locale.ROOT,
                        "<text x=\"4\" y=\"14\" font-size=\"12\">%s (%,d samples; frames under"
                                + " %.1f%% left out)</text>\n",
                        SvgCharts.escape(title),
                        root.samples,
                        MIN_SHARE * 100));
        for (String r : rects) {
            s.append(r);
        }
        return s.append("</svg>\n").toString();
    }

    private static void draw(
            Node node,
            int level,
            double x,
            double width,
            long total,
            List<String> out,
            int[] depth) {
        if (total == 0 || level > MAX_DEPTH) {
            return;
        }
        double y = 20 + level * ROW;
        int category = Profiles.frameCategory(node.name);
        String colour = category < 0 ? "#dddddd" : COLOURS.get(category);
        String label = node.name;
        StringBuilder r = new StringBuilder();
        r.append(
                String.format(
                        Locale.ROOT,
                        "<g><title>%s (%.1f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
                                + " height=\"%d\" fill=\"%s\"/>",
                        SvgCharts.escape(label),
                        100.0 * node.samples / total,
                        x,
                        y,
                        width,
                        ROW - 1,
                        colour));
        int chars = (int) (width / 6.5);
        if (chars >= 4) {
            String text = label.length() > chars ? label.substring(0, chars - 2) + ".." : label;
            r.append(
                    String.format(
                            Locale.ROOT,
                            "<text x=\"%.1f\" y=\"%.1f\">%s</text>",
                            x + 2,
                            y + ROW - 4,
                            SvgCharts.escape(text)));
        }
        out.add(r.append("</g>\n").toString());
        depth[0] = Math.max(depth[0], level);
        double childX = x;
        for (Node child : node.children.values()) {
            double childWidth = width * child.samples / node.samples;
            if ((double) child.samples / total >= MIN_SHARE) {
                draw(child, level + 1, childX, childWidth, total, out, depth);
            }
            childX += childWidth;
        }
    }
}
