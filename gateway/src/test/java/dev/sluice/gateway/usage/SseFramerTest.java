package dev.sluice.gateway.usage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseFramerTest {
    /** Comments, named events, CRLF and mixed endings, a two-line data field, non-ASCII text. */
    private static final String STREAM = ": keep-alive\n\n"
            + "event: delta\r\ndata: {\"text\":\"wörld 数据 🎉\"}\r\n\r\n"
            + "id: 7\nretry: 1000\n\n"
            + "data:no space\r\n\n"
            + "data: first\ndata: second\n\n"
            + "data: [DONE]\n\n";

    private static final List<String> DATA =
            List.of("{\"text\":\"wörld 数据 🎉\"}", "no space", "first\nsecond", "[DONE]");

    /** A framer whose reader records each event's data and drops the events whose data is {@code drop}. */
    private static final class Recorder {
        final List<String> data = new ArrayList<>();
        final ByteArrayOutputStream forwarded = new ByteArrayOutputStream();
        final SseFramer framer;

        Recorder(String drop) {
            framer = new SseFramer((payload, from, to) -> {
                String read = new String(payload, from, to - from, UTF_8);
                data.add(read);
                return read.equals(drop);
            });
        }

        Recorder run(byte[]... chunks) {
            for (byte[] chunk : chunks) forwarded.writeBytes(framer.feed(chunk));
            forwarded.writeBytes(framer.finish());
            return this;
        }

        String forwarded() {
            return forwarded.toString(UTF_8);
        }
    }

    @Test
    void anyTwoWaySplitGivesTheSameEventsAndBytes() {
        byte[] bytes = STREAM.getBytes(UTF_8);
        for (int split = 0; split <= bytes.length; split++) {
            Recorder r =
                    new Recorder(null).run(Arrays.copyOf(bytes, split), Arrays.copyOfRange(bytes, split, bytes.length));

            assertThat(r.data).as("split at %d", split).isEqualTo(DATA);
            assertThat(r.forwarded()).as("split at %d", split).isEqualTo(STREAM);
        }
    }

    @Test
    void oneByteChunksGiveTheSameEventsAndDropOnlyTheChosenOne() {
        byte[] bytes = STREAM.getBytes(UTF_8);
        byte[][] singles = new byte[bytes.length][];
        for (int i = 0; i < bytes.length; i++) singles[i] = new byte[] {bytes[i]};

        Recorder r = new Recorder("first\nsecond").run(singles);

        assertThat(r.data).isEqualTo(DATA);
        assertThat(r.forwarded()).isEqualTo(STREAM.replace("data: first\ndata: second\n\n", ""));
    }

    @Test
    void aMultiByteCharacterSplitAcrossChunksReachesTheReaderWhole() {
        String event = "data: 🎉\n\n";
        byte[] bytes = event.getBytes(UTF_8);
        for (int inside = 1; inside < 4; inside++) {
            int cut = "data: ".length() + inside;
            Recorder r =
                    new Recorder(null).run(Arrays.copyOf(bytes, cut), Arrays.copyOfRange(bytes, cut, bytes.length));

            assertThat(r.data).containsExactly("🎉");
            assertThat(r.forwarded.toByteArray()).isEqualTo(bytes);
        }
    }

    @Test
    void aLoneCarriageReturnDoesNotEndALine() {
        Recorder r = new Recorder(null).run("data: a\r\rdata: b\n\n".getBytes(UTF_8));

        assertThat(r.data).containsExactly("a\r\rdata: b");
    }

    @Test
    void anEventWithoutDataIsForwardedWithoutReachingTheReader() {
        Recorder r = new Recorder("").run(": ping\n\nevent: x\n\n".getBytes(UTF_8));

        assertThat(r.data).isEmpty();
        assertThat(r.forwarded()).isEqualTo(": ping\n\nevent: x\n\n");
    }
}
