package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** The chart is drawn, headless, from a fixed run's JSON, as a redraw of an earlier run does. */
class OverheadChartTest {

    @Test
    void drawsAPngNextToTheJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("overhead.json");
        Files.writeString(json, """
                {"settings":{"order":"alone","rounds":2,"slice_seconds":6.0,"quick":false},
                 "machine":{"cpu":"test CPU, 2 CPUs","load_1min_before":1.5,"load_1min_after":2.25},
                 "arms":{
                  "direct":{"label":"direct","rates":[{"rate":250.0,"p50_ms":0.3,"p99_ms":1.0,"passes":true,"sent":3000},
                                                     {"rate":1000.0,"p50_ms":0.25,"p99_ms":0.9,"passes":true,"sent":12000}]},
                  "sluice":{"label":"Sluice","rates":[{"rate":250.0,"p50_ms":0.8,"p99_ms":2.4,"passes":true,"sent":3000,
                                                       "redis_evalsha_per_request":1.0},
                                                      {"rate":1000.0,"p50_ms":1.2,"p99_ms":30.0,"passes":false,"sent":12000,
                                                       "redis_evalsha_per_request":1.0}]}}}
                """);

        Path png = OverheadChart.drawFrom(json);

        assertThat(png).isEqualTo(dir.resolve("overhead.png"));
        assertThat(Files.size(png)).isGreaterThan(10_000);
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(OverheadChart.WIDTH);
        assertThat(image.getHeight()).isEqualTo(OverheadChart.HEIGHT);
        // An older JSON (no raw EVALSHA count) still gives the run's figure from its ratio.
        List<Curves.Curve> curves = Curves.fromJson(JsonMapper.builder().build().readTree(json.toFile()));
        assertThat(curves.get(1).evalshaPerRequest()).isEqualTo(1.0);
    }
}
