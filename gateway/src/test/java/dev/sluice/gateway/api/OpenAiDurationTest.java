package dev.sluice.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** The one codec for OpenAI's durations: what it writes is what OpenAI writes, and it reads it back. */
class OpenAiDurationTest {

    @ParameterizedTest(name = "{0} ms -> {1}")
    @CsvSource({
        "0, 0s", // Go's time.Duration(0).String(), so OpenAI's: never "0ms"
        "1, 1ms",
        "12, 12ms",
        "999, 999ms",
        "1000, 1s",
        "1005, 1.005s",
        "1050, 1.05s",
        "1500, 1.5s",
        "12340, 12.34s",
        "17353, 17.353s",
        "59988, 59.988s",
        "60000, 1m0s",
        "61007, 1m1.007s",
        "360000, 6m0s",
        "3600000, 1h0m0s",
        "3600100, 1h0m0.1s",
        "3723000, 1h2m3s",
        "3723500, 1h2m3.5s",
        "90061001, 25h1m1.001s", // Go has no day unit: hours keep counting
        "9223372036854775807, 2562047788015h12m55.807s", // Long.MAX_VALUE: only divisions, nothing overflows
    })
    void writesAndReadsBackAsOpenAiWritesIt(long millis, String text) {
        assertThat(OpenAiDuration.format(millis)).isEqualTo(text);
        assertThat(OpenAiDuration.parseMillis(text)).isEqualTo(millis);
    }

    @ParameterizedTest(name = "{0} ms -> 0s")
    @ValueSource(longs = {-1, -1000, Long.MIN_VALUE})
    void aNegativeDurationIsWrittenAsZero(long millis) {
        // A reset already in the past (a clock step, a slot that just left) means "now".
        assertThat(OpenAiDuration.format(millis)).isEqualTo("0s");
    }

    @ParameterizedTest(name = "{0} -> {1} ms")
    @CsvSource({
        "0, 0", // Go's ParseDuration accepts a bare zero
        "2, 2000", // Retry-After: a bare number of seconds
        "1.5, 1500",
        "0.0001, 1", // rounded up: a client told to wait must not come back early
        "20ms, 20",
        "1.5ms, 2",
        "850us, 1",
        "850µs, 1",
        "1000000ns, 1",
        "1000001ns, 2",
        "2m59.56s, 179560",
        "1.5h, 5400000",
        ".5s, 500",
        "1.s, 1000",
        "' 6m0s ', 360000",
        "1h1h, 7200000",
        "9223372036854775807ms, 9223372036854775807",
        "9223372036854775808ms, 9223372036854775807", // past Long.MAX_VALUE: saturates, never wraps
        "99999999999999999999999h, 9223372036854775807",
        "2562047788015h13m, 9223372036854775807",
        "9223372036854775807h, 9223372036854775807",
    })
    void readsEveryShapeAProviderSendsAndSaturates(String text, long millis) {
        assertThat(OpenAiDuration.parseMillis(text)).isEqualTo(millis);
    }

    @ParameterizedTest(name = "\"{0}\" is not a duration")
    @NullAndEmptySource
    @ValueSource(
            strings = {
                " ",
                "-1s",
                "-0.5",
                "+1s",
                "s",
                "ms",
                ".s",
                "1x",
                "1 s",
                "1s2",
                "1d",
                "1.2.3s",
                "abc",
                "1e3",
                "NaN",
                "Infinity",
                "1s-2s",
                "Wed, 21 Oct 2026 07:28:00 GMT"
            })
    void refusesWhatIsNotADurationAsMinusOne(String text) {
        assertThat(OpenAiDuration.parseMillis(text)).isEqualTo(-1);
    }

    @Test
    void everyNonNegativeMillisecondCountSurvivesTheRoundTrip() {
        Random random = new Random(14);
        for (int i = 0; i < 100_000; i++) {
            long millis = switch (i % 4) {
                case 0 -> random.nextInt(1000);
                case 1 -> random.nextInt(10_000_000);
                case 2 -> random.nextLong(1L << 40);
                default -> random.nextLong(Long.MAX_VALUE);
            };
            assertThat(OpenAiDuration.parseMillis(OpenAiDuration.format(millis)))
                    .as("%d ms", millis)
                    .isEqualTo(millis);
        }
    }

    /** The long-arithmetic reading of common values answers exactly what the BigDecimal one does. */
    @Test
    void theFastReadingAgreesWithTheExactOne() {
        Random random = new Random(16);
        String[] units = {"h", "m", "s", "ms", "us", "\u00b5s", "\u03bcs", "ns", "", "x", "."};
        for (int i = 0; i < 200_000; i++) {
            StringBuilder v = new StringBuilder();
            int parts = 1 + random.nextInt(3);
            for (int p = 0; p < parts; p++) {
                if (random.nextInt(8) != 0) v.append(digits(random, random.nextInt(12)));
                if (random.nextInt(3) == 0) v.append('.').append(digits(random, random.nextInt(12)));
                v.append(units[random.nextInt(units.length)]);
            }
            String text = v.toString();
            if (text.isBlank()) continue;
            assertThat(OpenAiDuration.parseMillis(text)).as(text).isEqualTo(OpenAiDuration.exactMillis(text));
        }
    }

    private static String digits(Random random, int count) {
        StringBuilder d = new StringBuilder();
        for (int k = 0; k < count; k++) d.append((char) ('0' + random.nextInt(10)));
        return d.toString();
    }
}
