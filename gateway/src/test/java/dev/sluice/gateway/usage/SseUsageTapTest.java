package dev.sluice.gateway.usage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SseUsageTapTest {
    private static final Encoding O200K = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);

    private static final String HEAD =
            "{\"id\":\"chatcmpl-A1\",\"object\":\"chat.completion.chunk\",\"created\":1727000000,"
                    + "\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_a7d06e42a7\",";
    private static final List<String> CONTENT = List.of("Hello", ", wörld", " — 数据", " 🎉!");
    private static final String TEXT = String.join("", CONTENT);
    private static final String USAGE_EVENT = "data: " + HEAD + "\"choices\":[],\"usage\":{\"prompt_tokens\":12,"
            + "\"completion_tokens\":9,\"total_tokens\":21,\"prompt_tokens_details\":{\"cached_tokens\":0,\"audio_tokens\":0},"
            + "\"completion_tokens_details\":{\"reasoning_tokens\":0,\"audio_tokens\":0}}}\n\n";

    /** A chat stream as OpenAI sends it with stream_options.include_usage: true. */
    private static final String CHAT_STREAM = chunk("{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}", null)
            + CONTENT.stream()
                    .map(c -> chunk("{\"content\":\"" + c + "\"}", null))
                    .reduce("", String::concat)
            + chunk("{}", "\"stop\"")
            + USAGE_EVENT
            + "data: [DONE]\n\n";

    private static String chunk(String delta, String finishReason) {
        return "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"logprobs\":null,\"finish_reason\":" + finishReason + "}],\"usage\":null}\n\n";
    }

    private static String crlf(String lf) {
        return lf.replace("\n", "\r\n");
    }

    private static byte[] run(SseUsageTap tap, byte[]... chunks) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] chunk : chunks) out.writeBytes(tap.feed(chunk));
        out.writeBytes(tap.finish());
        return out.toByteArray();
    }

    private static byte[][] splitAt(byte[] bytes, int... points) {
        byte[][] chunks = new byte[points.length + 1][];
        int from = 0;
        for (int i = 0; i < points.length; i++) {
            chunks[i] = Arrays.copyOfRange(bytes, from, points[i]);
            from = points[i];
        }
        chunks[points.length] = Arrays.copyOfRange(bytes, from, bytes.length);
        return chunks;
    }

    private static void assertChatStream(String stream, boolean strip, String expected) {
        byte[] bytes = stream.getBytes(UTF_8);
        for (int split = 0; split <= bytes.length; split++) {
            SseUsageTap tap = new SseUsageTap(strip, O200K);
            byte[] forwarded = run(tap, splitAt(bytes, split));

            assertThat(new String(forwarded, UTF_8)).as("split at %d", split).isEqualTo(expected);
            assertThat(tap.usage()).as("split at %d", split).contains(new Usage(12, 9));
            assertThat(tap.sawDone()).isTrue();
            assertThat(tap.observedOutputTokens()).isEqualTo(O200K.countTokensOrdinary(TEXT));
        }
    }

    @Test
    void forwardsAStreamByteForByteAtEverySplitPointAndFindsItsUsage() {
        assertChatStream(CHAT_STREAM, false, CHAT_STREAM);
    }

    @Test
    void stripsOnlyTheUsageChunkTheGatewayAskedFor() {
        assertChatStream(CHAT_STREAM, true, CHAT_STREAM.replace(USAGE_EVENT, ""));
    }

    @Test
    void handlesCrlfEvents() {
        assertChatStream(crlf(CHAT_STREAM), false, crlf(CHAT_STREAM));
        assertChatStream(crlf(CHAT_STREAM), true, crlf(CHAT_STREAM.replace(USAGE_EVENT, "")));
    }

    @Test
    void survivesOneByteChunksAndRandomChunking() {
        byte[] bytes = CHAT_STREAM.getBytes(UTF_8);
        byte[] expected = CHAT_STREAM.replace(USAGE_EVENT, "").getBytes(UTF_8);
        byte[][] singles = new byte[bytes.length][];
        for (int i = 0; i < bytes.length; i++) singles[i] = new byte[] {bytes[i]};
        assertThat(run(new SseUsageTap(true, O200K), singles)).isEqualTo(expected);

        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            int[] points = random.ints(1 + random.nextInt(12), 0, bytes.length + 1)
                    .sorted()
                    .toArray();
            SseUsageTap tap = new SseUsageTap(true, O200K);
            assertThat(run(tap, splitAt(bytes, points)))
                    .as("splits %s", Arrays.toString(points))
                    .isEqualTo(expected);
            assertThat(tap.usage()).contains(new Usage(12, 9));
        }
    }

    @Test
    void forwardsEachEventAsSoonAsItIsCompleteAndHoldsOnlyTheRest() {
        String first = chunk("{\"content\":\"Hi\"}", null);
        String second = chunk("{\"content\":\" there\"}", null);
        SseUsageTap tap = new SseUsageTap(true, O200K);

        assertThat(tap.feed((first + second.substring(0, 40)).getBytes(UTF_8))).isEqualTo(first.getBytes(UTF_8));
        assertThat(tap.feed(second.substring(40, second.length() - 1).getBytes(UTF_8)))
                .isEmpty();
        assertThat(tap.feed("\n".getBytes(UTF_8))).isEqualTo(second.getBytes(UTF_8));
        assertThat(tap.finish()).isEmpty();
    }

    @Test
    void aChunkHoldingOnlyCompleteEventsIsForwardedWithoutACopy() {
        byte[] chunk = chunk("{\"content\":\"Hi\"}", null).getBytes(UTF_8);

        assertThat(new SseUsageTap(false, O200K).feed(chunk)).isSameAs(chunk);
    }

    @Test
    void aStreamCutBeforeItsUsageIsChargedForTheTextItProduced() {
        String stream = CHAT_STREAM.substring(0, CHAT_STREAM.indexOf(USAGE_EVENT));
        byte[] bytes = stream.getBytes(UTF_8);
        int cut = bytes.length - 30; // mid-way through the finish chunk
        SseUsageTap tap = new SseUsageTap(true, O200K);

        byte[] forwarded = tap.feed(Arrays.copyOf(bytes, cut));

        assertThat(tap.usage()).isEmpty();
        assertThat(tap.sawDone()).isFalse();
        assertThat(tap.observedOutputTokens()).isPositive().isEqualTo(O200K.countTokensOrdinary(TEXT));
        assertThat(new String(forwarded, UTF_8) + new String(tap.finish(), UTF_8))
                .isEqualTo(new String(Arrays.copyOf(bytes, cut), UTF_8));
    }

    @Test
    void aMultiByteCharacterSplitAcrossChunksIsCountedAndForwardedWhole() {
        String event = chunk("{\"content\":\"🎉数\"}", null);
        byte[] bytes = event.getBytes(UTF_8);
        int emoji = event.indexOf("🎉");
        int emojiAt = event.substring(0, emoji).getBytes(UTF_8).length;
        for (int inside = 1; inside < 4; inside++) {
            SseUsageTap tap = new SseUsageTap(false, O200K);
            byte[] forwarded = run(tap, splitAt(bytes, emojiAt + inside, emojiAt + 4 + 1));

            assertThat(forwarded).isEqualTo(bytes);
            assertThat(tap.observedOutputTokens()).isEqualTo(O200K.countTokensOrdinary("🎉数"));
        }
    }

    @Test
    void keepsAUsageChunkThatStillCarriesAChoice() {
        // Some compatible providers report usage on the finish chunk itself: that chunk is content.
        String stream = "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\ndata: [DONE]\n\n";
        SseUsageTap tap = new SseUsageTap(true, O200K);

        assertThat(new String(run(tap, stream.getBytes(UTF_8)), UTF_8)).isEqualTo(stream);
        assertThat(tap.usage()).contains(new Usage(3, 2));
    }

    @Test
    void countsToolCallArgumentsAndLegacyCompletionText() {
        String tools =
                "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
                        + "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\"}}]}}]}\n\n"
                        + "data: " + HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                        + "\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]}}]}\n\n";
        SseUsageTap toolTap = new SseUsageTap(false, O200K);
        run(toolTap, tools.getBytes(UTF_8));
        assertThat(toolTap.observedOutputTokens())
                .isEqualTo(O200K.countTokensOrdinary("get_weather{\"city\":\"Paris\"}"));

        String completions =
                "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"text\":\"Once upon\","
                        + "\"index\":0,\"logprobs\":null,\"finish_reason\":null}]}\n\n"
                        + "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"text\":\" a time\",\"index\":0}]}\n\n"
                        + "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[],"
                        + "\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":4,\"total_tokens\":8}}\n\ndata: [DONE]\n\n";
        SseUsageTap completionTap = new SseUsageTap(true, O200K);
        assertThat(new String(run(completionTap, completions.getBytes(UTF_8)), UTF_8))
                .isEqualTo(completions.substring(
                                0,
                                completions.indexOf(
                                        "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[],"))
                        + "data: [DONE]\n\n");
        assertThat(completionTap.observedOutputTokens()).isEqualTo(O200K.countTokensOrdinary("Once upon a time"));
        assertThat(completionTap.usage()).contains(new Usage(4, 4));
    }

    /** A Responses API stream: typed events, the text in deltas, the usage in response.completed. */
    private static final String RESPONSES_STREAM = """
            event: response.created
            data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-4.1-2025-04-14","output":[],"usage":null}}

            event: response.output_item.added
            data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}

            event: response.output_text.delta
            data: {"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Bonjour, "}

            event: response.output_text.delta
            data: {"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"le monde 🌍"}

            event: response.output_text.done
            data: {"type":"response.output_text.done","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"text":"Bonjour, le monde 🌍"}

            event: response.completed
            data: {"type":"response.completed","sequence_number":5,"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-4.1-2025-04-14","output":[{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"Bonjour, le monde 🌍"}],"role":"assistant"}],"usage":{"input_tokens":14,"input_tokens_details":{"cached_tokens":0},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":21}}}

            """;

    @Test
    void readsAResponsesApiStreamAtEverySplitPoint() {
        byte[] bytes = RESPONSES_STREAM.getBytes(UTF_8);
        for (int split = 0; split <= bytes.length; split++) {
            SseUsageTap tap = new SseUsageTap(true, O200K);

            assertThat(run(tap, splitAt(bytes, split))).as("split at %d", split).isEqualTo(bytes);
            assertThat(tap.usage()).contains(new Usage(14, 7));
            assertThat(tap.sawDone()).isTrue();
            // The deltas only: the .done events repeat the text and must not count twice.
            assertThat(tap.observedOutputTokens()).isEqualTo(O200K.countTokensOrdinary("Bonjour, le monde 🌍"));
        }
    }

    @Test
    void aResponsesStreamCutShortHasNoUsageButItsText() {
        String cut = RESPONSES_STREAM.substring(0, RESPONSES_STREAM.indexOf("event: response.output_text.done"));
        SseUsageTap tap = new SseUsageTap(false, O200K);
        run(tap, cut.getBytes(UTF_8));

        assertThat(tap.usage()).isEmpty();
        assertThat(tap.sawDone()).isFalse();
        assertThat(tap.observedOutputTokens()).isEqualTo(O200K.countTokensOrdinary("Bonjour, le monde 🌍"));
    }

    @Test
    void commentsKeepAlivesMultiLineDataAndNonJsonPassUntouched() {
        String stream = ": keep-alive\n\nevent: ping\ndata: not json\n\nid: 7\nretry: 1000\n\n"
                + "data: {\"choices\":[{\"delta\":\n" + "data: {\"content\":\"two lines\"}}]}\n\n"
                + "data: {\"broken\":\n\n";
        SseUsageTap tap = new SseUsageTap(true, O200K);

        assertThat(new String(run(tap, stream.getBytes(UTF_8)), UTF_8)).isEqualTo(stream);
        assertThat(tap.observedOutputTokens()).isEqualTo(O200K.countTokensOrdinary("two lines"));
        assertThat(tap.usage()).isEmpty();
    }

    @Test
    void anEventMissingItsBlankLineAtTheEndIsStillReadAndForwarded() {
        String stream = chunk("{\"content\":\"Hi\"}", null) + USAGE_EVENT.strip();
        SseUsageTap tap = new SseUsageTap(false, O200K);

        assertThat(new String(run(tap, stream.getBytes(UTF_8)), UTF_8)).isEqualTo(stream);
        assertThat(tap.usage()).contains(new Usage(12, 9));
    }

    @Test
    void anOversizedEventIsPassedOnRatherThanHeld() {
        byte[] huge = new byte[SseFramer.MAX_HELD_EVENT_BYTES + 10];
        Arrays.fill(huge, (byte) 'x');
        huge[0] = ':';
        SseUsageTap tap = new SseUsageTap(true, O200K);

        assertThat(tap.feed(huge)).hasSize(huge.length);
        assertThat(tap.feed("more\n\n".getBytes(UTF_8))).isEqualTo("more\n\n".getBytes(UTF_8));
        byte[] next = USAGE_EVENT.getBytes(UTF_8);
        assertThat(tap.feed(next)).isEmpty(); // inspected again once the big event ended
        assertThat(tap.usage()).contains(new Usage(12, 9));
    }

    @Test
    void longOutputIsCountedInBatchesCloseToTheWholeText() {
        StringBuilder stream = new StringBuilder();
        StringBuilder text = new StringBuilder();
        Random random = new Random(3);
        String[] words = {" the", " gateway", " streams", " tokens", ",", " données", " 数据", "\\n"};
        for (int i = 0; i < 5000; i++) {
            String word = words[random.nextInt(words.length)];
            stream.append(chunk("{\"content\":\"" + word + "\"}", null));
            text.append(word.equals("\\n") ? "\n" : word);
        }
        SseUsageTap tap = new SseUsageTap(false, O200K);
        run(tap, stream.toString().getBytes(UTF_8));

        long exact = O200K.countTokensOrdinary(text.toString());
        assertThat(tap.observedOutputTokens()).isBetween(exact, exact + exact / 100);
    }
}
