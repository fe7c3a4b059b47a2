package dev.sluice.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The run's chart: latency against rate, per arm, p99 solid and p50 dashed, both axes
 * logarithmic, with the 5 ms p99 line. Written by the benchmark next to {@code overhead.json};
 * {@link #main} redraws it from a JSON written earlier, without rerunning.
 */
final class OverheadChart {
    static {
        System.setProperty("java.awt.headless", "true"); // the benchmark and CI have no display
    }

    static final int WIDTH = 1000;
    static final int HEIGHT = 620;
    /** One colour per arm, in the order the benchmark runs them. */
    private static final List<Color> COLOURS = List.of(
            new Color(0x55, 0x55, 0x55),
            new Color(0x1f, 0x77, 0xb4),
            new Color(0xff, 0x7f, 0x0e),
            new Color(0xd6, 0x27, 0x28),
            new Color(0x2c, 0xa0, 0x2c));

    private OverheadChart() {}

    /** Draws {@code curves} to {@code png}; {@code subtitle} says which run (mode, machine load). */
    static void write(List<Curves.Curve> curves, String subtitle, Path png) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        int series = 0;
        for (int i = 0; i < curves.size(); i++) {
            Curves.Curve c = curves.get(i);
            Color colour = COLOURS.get(i % COLOURS.size());
            XYSeries p99 = new XYSeries(c.key() + " p99");
            XYSeries p50 = new XYSeries(c.key() + " p50");
            for (Curves.Point p : c.points()) {
                // A log axis cannot place 0 (an empty histogram): leave such a point out.
                if (p.p99Ms() > 0) p99.add(p.rate(), p.p99Ms());
                if (p.p50Ms() > 0) p50.add(p.rate(), p.p50Ms());
            }
            data.addSeries(p99);
            renderer.setSeriesPaint(series, colour);
            renderer.setSeriesStroke(series++, new BasicStroke(2.2f));
            data.addSeries(p50);
            renderer.setSeriesPaint(series, colour);
            renderer.setSeriesStroke(
                    series++,
                    new BasicStroke(1.4f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        }

        List<Double> rates = curves.stream()
                .flatMap(c -> c.points().stream())
                .map(Curves.Point::rate)
                .distinct()
                .sorted()
                .toList();
        LogAxis rate = new TickedLogAxis("offered rate (requests/s, open loop)", rates, new DecimalFormat("#,##0"));
        LogAxis latency = new TickedLogAxis(
                "latency from each request's due time (ms)", oneTwoFive(), new DecimalFormat("#,##0.##"));

        XYPlot plot = new XYPlot(data, rate, latency, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ValueMarker limit = new ValueMarker(
                OverheadBenchmark.P99_LIMIT_MS,
                Color.GRAY,
                new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {2f, 3f}, 0f));
        limit.setLabel(String.format(Locale.ROOT, "p99 limit %.0f ms", OverheadBenchmark.P99_LIMIT_MS));
        limit.setLabelAnchor(RectangleAnchor.TOP_LEFT);
        limit.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
        plot.addRangeMarker(limit);

        JFreeChart chart = new JFreeChart(
                "What each arm's latency does as the rate rises (p99 solid, p50 dashed)",
                new Font(Font.SANS_SERIF, Font.BOLD, 16),
                plot,
                true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(new TextTitle(subtitle, new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        Files.createDirectories(png.toAbsolutePath().getParent());
        ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
    }

    /** 1, 2, 5 times each power of ten from 0.01 to 100,000: round figures to read a log scale by. */
    private static List<Double> oneTwoFive() {
        List<Double> ticks = new ArrayList<>();
        for (int exp = -2; exp <= 5; exp++) {
            for (int m : new int[] {1, 2, 5}) ticks.add(m * Math.pow(10, exp));
        }
        return ticks;
    }

    /**
     * A log axis with its ticks at given values (the rates tried; round latencies), where
     * LogAxis's own fall at fractions of a power of ten (316, 1.58) that no one reads.
     */
    private static final class TickedLogAxis extends LogAxis {
        private final List<Double> values;
        private final NumberFormat format;

        TickedLogAxis(String label, List<Double> values, NumberFormat format) {
            super(label);
            this.values = values;
            this.format = format;
            setBase(10);
            setSmallestValue(0.01);
        }

        @Override
        @SuppressWarnings({"rawtypes", "unchecked"})
        public List refreshTicks(Graphics2D g2, AxisState state, Rectangle2D dataArea, RectangleEdge edge) {
            boolean horizontal = RectangleEdge.isTopOrBottom(edge);
            List ticks = new ArrayList();
            for (double v : values) {
                if (v < getLowerBound() || v > getUpperBound()) continue;
                ticks.add(new NumberTick(
                        v,
                        format.format(v),
                        horizontal ? TextAnchor.TOP_CENTER : TextAnchor.CENTER_RIGHT,
                        TextAnchor.CENTER,
                        0.0));
            }
            return ticks;
        }
    }

    /** The subtitle for an {@code overhead.json}'s run, from its settings and machine. */
    static String subtitle(JsonNode root) {
        JsonNode s = root.path("settings");
        JsonNode m = root.path("machine");
        return String.format(
                Locale.ROOT,
                "order %s, %s round(s) of %s s per arm and rate; %s; load average (1 min) %s -> %s%s",
                s.path("order").asString("interleaved"),
                s.path("rounds").asString(""),
                s.path("slice_seconds").asString(""),
                m.path("cpu").asString(""),
                m.path("load_1min_before").asString("?"),
                m.path("load_1min_after").asString("?"),
                s.path("quick").asBoolean(false) ? "; QUICK RUN: figures mean nothing" : "");
    }

    /** Draws the chart of an {@code overhead.json} as {@code overhead.png} next to it. */
    static Path drawFrom(Path json) throws IOException {
        JsonNode root = JsonMapper.builder().build().readTree(json.toFile());
        Path png = json.toAbsolutePath().resolveSibling("overhead.png");
        write(Curves.fromJson(root), subtitle(root), png);
        return png;
    }

    /** Redraws the chart of an {@code overhead.json} and prints its judged summary again. */
    static Path redraw(Path json) throws IOException {
        Path png = drawFrom(json);
        System.out.print(Verdict.of(Curves.fromJson(JsonMapper.builder().build().readTree(json.toFile())))
                .text());
        return png;
    }

    /** {@code OverheadChart <overhead.json>}: writes overhead.png next to it. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: OverheadChart <path to overhead.json>");
            System.exit(2);
        }
        System.out.println("Written: " + redraw(Path.of(args[0])));
    }
}
