package dev.sluice.gateway.usage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

class UsageExtractorTest {
    private static Optional<Usage> extract(String json) {
        return UsageExtractor.fromJson(json.getBytes(UTF_8));
    }

    @Test
    void chatCompletion() {
        assertThat(extract("""
                {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-2024-08-06",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"usage: not this one","refusal":null},
                   "logprobs":null,"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,
                   "prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},
                   "completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}},
                 "service_tier":"default","system_fingerprint":"fp_1"}""")).contains(new Usage(19, 10));
    }

    @Test
    void legacyCompletion() {
        assertThat(extract("""
                {"id":"cmpl-1","object":"text_completion","model":"gpt-3.5-turbo-instruct",
                 "choices":[{"text":"\\n\\nHi","index":0,"logprobs":null,"finish_reason":"length"}],
                 "usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}""")).contains(new Usage(5, 7));
    }

    @Test
    void embeddingsHaveNoCompletionTokens() {
        Optional<Usage> usage = extract("""
                {"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.0023,-0.0093]}],
                 "model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}""");

        assertThat(usage).contains(new Usage(8, 0));
        assertThat(usage.orElseThrow().totalTokens()).isEqualTo(8);
    }

    @Test
    void responsesApi() {
        assertThat(extract("""
                {"id":"resp_1","object":"response","status":"completed","model":"gpt-4.1-2025-04-14",
                 "output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant",
                   "content":[{"type":"output_text","text":"Hi there","annotations":[]}]}],
                 "usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":0},
                   "output_tokens":87,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":123}}""")).contains(new Usage(36, 87));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "not json",
                "<html>502 Bad Gateway</html>",
                "[1,2]",
                "{\"usage\":null}",
                "{\"usage\":{}}",
                "{\"usage\":{\"prompt_tokens\":\"12\"}}",
                "{\"usage\":{\"prompt_tokens\":-1}}",
                "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}",
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":3",
                "{\"model\":\"x\",\"usage\":{\"prompt_tokens\":1}"
            })
    void nothingWhenThereIsNoUsableUsage(String body) {
        assertThat(extract(body)).isEmpty();
    }

    @Test
    void nullBodyIsEmptyToo() {
        assertThat(UsageExtractor.fromJson(null)).isEmpty();
    }

    /** Reading usage from the parser answers what reading it as a tree did, on any mix of fields and values. */
    @Test
    void readingFromTheParserAgreesWithTheTree() throws Exception {
        Random random = new Random(16);
        String[] names = {
            "input_tokens", "output_tokens", "prompt_tokens", "completion_tokens", "total_tokens", "cached", "details"
        };
        String[] values = {
            "0",
            "7",
            "13",
            "-3",
            "2.5",
            "1e3",
            "null",
            "true",
            "\"12\"",
            "9223372036854775807",
            "9223372036854775808",
            "{\"a\":[1,{\"b\":2}]}",
            "[1,2]",
            "{}",
            "2147483648"
        };
        for (int i = 0; i < 20_000; i++) {
            StringBuilder usage = new StringBuilder("{");
            int fields = random.nextInt(7);
            for (int f = 0; f < fields; f++) {
                if (f > 0) usage.append(',');
                usage.append('"')
                        .append(names[random.nextInt(names.length)])
                        .append("\":")
                        .append(values[random.nextInt(values.length)]);
            }
            String json = usage.append('}').toString();
            Optional<Usage> tree = UsageExtractor.fromUsageNode(UsageExtractor.JSON.readTree(json));
            try (JsonParser p = UsageExtractor.JSON.createParser(json)) {
                p.nextToken();
                assertThat(UsageExtractor.readUsage(p)).as(json).isEqualTo(tree);
                assertThat(p.currentToken()).isEqualTo(JsonToken.END_OBJECT);
            }
            assertThat(extract("{\"id\":\"x\",\"usage\":" + json + ",\"z\":[1]}"))
                    .as(json)
                    .isEqualTo(tree);
        }
    }

    private static String text(String json) {
        byte[] bytes = json.getBytes(UTF_8);
        return UsageExtractor.outputText(bytes, bytes.length);
    }

    @Test
    void theGeneratedTextOfChoicesCompletionsAndResponsesOutput() {
        assertThat(text("""
                {"choices":[{"message":{"role":"assistant","content":"one","tool_calls":[{"function":{"name":"f","arguments":"{\\"a\\":1}"}}]}},
                            {"message":{"role":"assistant","content":null,"refusal":"two"}}],"usage":{"prompt_tokens":1}}""")).isEqualTo("one{\"a\":1}two");
        assertThat(text("{\"choices\":[{\"text\":\"legacy\"}]}")).isEqualTo("legacy");
        assertThat(text("""
                {"id":"resp_1","output":[{"type":"reasoning","summary":[]},
                  {"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello","annotations":[]}]},
                  {"type":"function_call","name":"f","arguments":"{}"}],"text":{"format":{"type":"text"}}}""")).isEqualTo("hello{}");
    }

    @Test
    void aCutOrBrokenBodyGivesTheTextBeforeTheBreak() {
        // Cut inside a string: what passed of it counts too. A one-choice answer is one string, and a client that
        // hung up in it had read that text (ChargeBoundsPropertyTest: 3,993 tokens read, none counted).
        assertThat(text("{\"choices\":[{\"message\":{\"content\":\"before\"}},{\"message\":{\"content\":\"aft"))
                .isEqualTo("beforeaft");
        assertThat(text("{\"choices\":[{\"message\":{\"content\":\" a a a")).isEqualTo(" a a a");
        assertThat(text("{\"choices\":[{\"message\":{\"content\":\"line\\nnext \\\"q\\\" \\u00e9t\\u00"))
                .as("escapes decoded, one cut in half left out")
                .isEqualTo("line\nnext \"q\" \u00e9t");
        assertThat(text("{\"choices\":[{\"message\":{\"content\":\"ab\\")).isEqualTo("ab");
        byte[] cutInChar = "{\"choices\":[{\"message\":{\"content\":\"caf\u00e9".getBytes(UTF_8);
        assertThat(UsageExtractor.outputText(cutInChar, cutInChar.length - 1))
                .as("a character cut in half is left out")
                .isEqualTo("caf");
        assertThat(text("{\"choices\":[{\"message\":{\"role\":\"assis"))
                .as("not generated text")
                .isEmpty();
        assertThat(text("<html>")).isEmpty();
        assertThat(text("")).isEmpty();
    }
}
