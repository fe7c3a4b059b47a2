package dev.sluice.gateway.estimate;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TokenEstimatorTest {
    private static final TokenEstimator ESTIMATOR = new TokenEstimator();
    private static final EncodingRegistry REGISTRY = Encodings.newDefaultEncodingRegistry();
    private static final Encoding O200K = REGISTRY.getEncoding(EncodingType.O200K_BASE);
    private static final Encoding CL100K = REGISTRY.getEncoding(EncodingType.CL100K_BASE);
    private static final long DEFAULT_OUTPUT = 1000;

    private static final String SYSTEM = "You are a terse assistant. Answer in one sentence.";
    private static final String USER = "Explain why sliding windows beat fixed windows for rate limiting.";
    /** Where o200k and cl100k disagree, so the tests can tell which one counted. */
    private static final String MIXED = "Données de télémétrie: 数据流量 — ¿qué pasó? Привет, мир! 🎉";

    private static final String MESSAGES = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";

    private static RequestEstimate estimate(String path, String json) {
        return ESTIMATOR.estimate(path, json.getBytes(UTF_8), DEFAULT_OUTPUT);
    }

    private static RequestEstimate chat(String json) {
        return estimate("/v1/chat/completions", json);
    }

    private static long tokens(Encoding enc, String text) {
        return enc.countTokensOrdinary(text);
    }

    private long mixedPrompt(String model) {
        return estimate("/v1/embeddings", "{\"model\":\"" + model + "\",\"input\":\"" + MIXED + "\"}")
                .promptTokens();
    }

    private void assertRejected(String path, String body, String param, String message) {
        assertThatThrownBy(() -> estimate(path, body)).isInstanceOfSatisfying(InvalidRequestException.class, e -> {
            assertThat(e.param()).isEqualTo(param);
            assertThat(e.getMessage()).contains(message);
        });
    }

    private void assertChatRejected(String fields, String param, String message) {
        assertRejected(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]" + fields + "}",
                param,
                message);
    }

    // --- chat

    @Test
    void promptIsTheTextCountedByTheTokenizerPlusOpenAisPerMessageOverhead() {
        RequestEstimate e = chat("""
                {"model":"gpt-4o","messages":[
                  {"role":"system","content":"%s"},
                  {"role":"user","content":"%s"}]}""".formatted(SYSTEM, USER));

        long expected = 3 // reply priming
                + 3
                + tokens(O200K, "system")
                + tokens(O200K, SYSTEM)
                + 3
                + tokens(O200K, "user")
                + tokens(O200K, USER);
        assertThat(e.promptTokens()).isEqualTo(expected);
        assertThat(e.endpoint()).isEqualTo(Endpoint.CHAT);
        assertThat(e.model()).isEqualTo("gpt-4o");
        assertThat(e.maxOutputTokens()).isEqualTo(DEFAULT_OUTPUT);
        assertThat(e.totalTokens()).isEqualTo(expected + DEFAULT_OUTPUT);
        assertThat(e.stream()).isFalse();
        assertThat(e.clientAskedForUsage()).isFalse();
    }

    @Test
    void aNameCostsItsTokensPlusOne() {
        long without = chat("""
                {"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}""").promptTokens();
        long with = chat("""
                {"model":"gpt-4o","messages":[{"role":"user","name":"alice_smith","content":"hi"}]}""").promptTokens();

        assertThat(with - without).isEqualTo(tokens(O200K, "alice_smith") + 1);
    }

    @Test
    void textPartsCountTheirTextAndEachImageAFixedAmount() {
        RequestEstimate e = chat("""
                {"model":"gpt-4o","messages":[{"role":"user","content":[
                  {"type":"text","text":"%s"},
                  {"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"high"}},
                  {"type":"text","text":"%s"},
                  {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}""".formatted(USER, SYSTEM));

        assertThat(e.promptTokens())
                .isEqualTo(3
                        + 3
                        + tokens(O200K, "user")
                        + tokens(O200K, USER)
                        + tokens(O200K, SYSTEM)
                        + 2L * ConversationTokens.NON_TEXT_PART_TOKENS);
    }

    @Test
    void otherOrUntypedPartsCountTheFlatAmount() {
        RequestEstimate e = chat("""
                {"model":"gpt-4o","messages":[{"role":"user","content":[
                  {"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},
                  {"type":{"odd":true}},
                  {"text":"no type"}]}]}""");

        assertThat(e.promptTokens())
                .isEqualTo(3 + 3 + tokens(O200K, "user") + 3L * ConversationTokens.NON_TEXT_PART_TOKENS);
    }

    @Test
    void toolDefinitionsAndToolCallsCountAsTheirJsonText() {
        String tools = """
                [{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]""";
        String toolCalls = """
                [{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]""";
        long base = chat("""
                {"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}""").promptTokens();

        long withTools = chat("""
                {"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"tools":%s}""".formatted(tools)).promptTokens();
        long withCall = chat("""
                {"model":"gpt-4o","messages":[{"role":"user","content":"hi"},
                  {"role":"assistant","content":null,"tool_calls":%s},
                  {"role":"tool","tool_call_id":"call_1","content":"18C"}]}""".formatted(toolCalls)).promptTokens();

        assertThat(withTools - base).isEqualTo(tokens(O200K, tools));
        assertThat(withCall - base)
                .isEqualTo(3
                        + tokens(O200K, "assistant")
                        + tokens(O200K, toolCalls)
                        + 3
                        + tokens(O200K, "tool")
                        + tokens(O200K, "call_1")
                        + tokens(O200K, "18C"));
    }

    @Test
    void streamAndTheClientsOwnUsageRequestAreReported() {
        RequestEstimate e = chat("""
                {"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},
                 "messages":[{"role":"user","content":"hi"}]}""");

        assertThat(e.stream()).isTrue();
        assertThat(e.clientAskedForUsage()).isTrue();
        assertThat(chat("""
                {"model":"gpt-4o","stream":true,"stream_options":{"include_usage":false},
                 "messages":[{"role":"user","content":"hi"}]}""").clientAskedForUsage()).isFalse();
    }

    @Test
    void theGatewayAsksForUsageOnlyOnChatAndCompletionStreamsThatDidNot() {
        assertThat(chat("{\"model\":\"gpt-4o\",\"stream\":true," + MESSAGES + "}")
                        .gatewayMustRequestUsage())
                .isTrue();
        assertThat(estimate("/v1/completions", "{\"model\":\"davinci-002\",\"prompt\":\"x\",\"stream\":true}")
                        .gatewayMustRequestUsage())
                .isTrue();
        assertThat(chat("{\"model\":\"gpt-4o\",\"stream\":true,\"stream_options\":{\"include_usage\":true}," + MESSAGES
                                + "}")
                        .gatewayMustRequestUsage())
                .isFalse();
        assertThat(chat("{\"model\":\"gpt-4o\"," + MESSAGES + "}").gatewayMustRequestUsage())
                .isFalse();
        assertThat(estimate("/v1/responses", "{\"model\":\"gpt-4o\",\"input\":\"x\",\"stream\":true}")
                        .gatewayMustRequestUsage())
                .isFalse();
    }

    @Test
    void specialTokenTextInAPromptIsCountedAsText() {
        RequestEstimate e = chat("""
                {"model":"gpt-4o","messages":[{"role":"user","content":"<|endoftext|>"}]}""");

        assertThat(e.promptTokens()).isEqualTo(3 + 3 + tokens(O200K, "user") + tokens(O200K, "<|endoftext|>"));
    }

    // --- output reservation

    @Test
    void maxCompletionTokensWinsOverMaxTokens() {
        assertThat(chat("{\"model\":\"gpt-4o\"," + MESSAGES + ",\"max_tokens\":50,\"max_completion_tokens\":200}")
                        .maxOutputTokens())
                .isEqualTo(200);
        assertThat(chat("{\"model\":\"gpt-4o\"," + MESSAGES + ",\"max_tokens\":50}")
                        .maxOutputTokens())
                .isEqualTo(50);
    }

    @Test
    void withoutALimitTheDefaultIsReserved() {
        assertThat(ESTIMATOR
                        .estimate(
                                "/v1/chat/completions",
                                ("{\"model\":\"gpt-4o\"," + MESSAGES + ",\"max_tokens\":null}").getBytes(UTF_8),
                                4096)
                        .maxOutputTokens())
                .isEqualTo(4096);
    }

    @Test
    void responsesReserveMaxOutputTokens() {
        assertThat(estimate("/v1/responses", "{\"model\":\"gpt-4o\",\"input\":\"hi\",\"max_output_tokens\":300}")
                        .maxOutputTokens())
                .isEqualTo(300);
        assertThat(estimate("/v1/responses", "{\"model\":\"gpt-4o\",\"input\":\"hi\"}")
                        .maxOutputTokens())
                .isEqualTo(DEFAULT_OUTPUT);
    }

    @Test
    void everyRequestedChoiceReservesItsOwnOutput() {
        assertThat(chat("{\"model\":\"gpt-4o\"," + MESSAGES + ",\"max_tokens\":100,\"n\":3}")
                        .maxOutputTokens())
                .isEqualTo(300);
        assertThat(estimate(
                                "/v1/completions",
                                "{\"model\":\"gpt-3.5-turbo-instruct\",\"prompt\":[\"a\",\"b\"],\"max_tokens\":10,\"n\":2,\"best_of\":3}")
                        .maxOutputTokens())
                .isEqualTo(60);
    }

    @Test
    void anAbsurdLimitIsRefusedNamingItsFieldNeverWrapped() {
        assertChatRejected(
                ",\"max_tokens\":" + Long.MAX_VALUE,
                "max_tokens",
                "Invalid 'max_tokens': integer above maximum value. Expected a value <= 2147483647, but got "
                        + Long.MAX_VALUE + " instead.");
        assertChatRejected(",\"max_completion_tokens\":2147483648", "max_completion_tokens", "above maximum value");
        assertRejected(
                "/v1/responses",
                "{\"model\":\"gpt-4o\",\"input\":\"x\",\"max_output_tokens\":9007199254740993}",
                "max_output_tokens",
                "above maximum value");
        assertChatRejected(",\"n\":129", "n", "Expected a value <= 128");
        assertRejected(
                "/v1/completions",
                "{\"model\":\"davinci-002\",\"prompt\":\"x\",\"best_of\":21}",
                "best_of",
                "Expected a value <= 20");
        // The largest limits accepted multiply without overflow.
        RequestEstimate e = chat("{\"model\":\"gpt-4o\"," + MESSAGES + ",\"max_tokens\":2147483647,\"n\":128}");
        assertThat(e.maxOutputTokens()).isEqualTo(2147483647L * 128);
    }

    // --- other endpoints

    @Test
    void completionsCountAPromptStringOrEachStringOfAnArray() {
        RequestEstimate one = estimate(
                "/v1/completions",
                "{\"model\":\"gpt-3.5-turbo-instruct\",\"prompt\":\"" + USER + "\",\"max_tokens\":16}");
        RequestEstimate two = estimate(
                "/v1/completions",
                "{\"model\":\"gpt-3.5-turbo-instruct\",\"prompt\":[\"" + USER + "\",\"" + SYSTEM
                        + "\"],\"max_tokens\":16}");

        assertThat(one.endpoint()).isEqualTo(Endpoint.COMPLETIONS);
        assertThat(one.promptTokens()).isEqualTo(tokens(CL100K, USER));
        assertThat(one.maxOutputTokens()).isEqualTo(16);
        assertThat(two.promptTokens()).isEqualTo(tokens(CL100K, USER) + tokens(CL100K, SYSTEM));
        assertThat(two.maxOutputTokens()).isEqualTo(32);
    }

    @Test
    void completionsTokenIdPromptsCountTheirLength() {
        assertThat(estimate("/v1/completions", "{\"model\":\"davinci-002\",\"prompt\":[1,2,3,4]}")
                        .promptTokens())
                .isEqualTo(4);
        assertThat(estimate("/v1/completions", "{\"model\":\"davinci-002\",\"prompt\":[[1,2],[3,4,5]]}")
                        .maxOutputTokens())
                .isEqualTo(2 * DEFAULT_OUTPUT);
    }

    @Test
    void embeddingsCountTheInputAndReserveNoOutput() {
        RequestEstimate text = estimate(
                "/v1/embeddings",
                "{\"model\":\"text-embedding-3-small\",\"input\":[\"" + USER + "\",\"" + SYSTEM
                        + "\"],\"stream\":\"ignored\"}");
        RequestEstimate ids =
                estimate("/v1/embeddings", "{\"model\":\"text-embedding-3-small\",\"input\":[[1,2,3],[4,5]]}");

        assertThat(text.endpoint()).isEqualTo(Endpoint.EMBEDDINGS);
        assertThat(text.promptTokens()).isEqualTo(tokens(CL100K, USER) + tokens(CL100K, SYSTEM));
        assertThat(text.maxOutputTokens()).isZero();
        assertThat(text.stream()).isFalse();
        assertThat(ids.promptTokens()).isEqualTo(5);
    }

    @Test
    void responsesCountInstructionsAndInputStringAsMessages() {
        RequestEstimate e = estimate("/v1/responses", """
                {"model":"gpt-4.1","instructions":"%s","input":"%s","stream":true}""".formatted(SYSTEM, USER));

        assertThat(e.endpoint()).isEqualTo(Endpoint.RESPONSES);
        assertThat(e.promptTokens()).isEqualTo(3 + 3 + tokens(O200K, SYSTEM) + 3 + tokens(O200K, USER));
        assertThat(e.stream()).isTrue();
        assertThat(e.clientAskedForUsage()).isFalse();
    }

    @Test
    void responsesCountMessageItemsWithTheirParts() {
        RequestEstimate e = estimate("/v1/responses", """
                {"model":"gpt-4o","input":[
                  {"role":"user","content":[{"type":"input_text","text":"%s"},{"type":"input_image","image_url":"https://x/y.png"}]},
                  {"type":"message","role":"assistant","content":[{"type":"output_text","text":"%s"}]}]}""".formatted(USER, SYSTEM));

        assertThat(e.promptTokens())
                .isEqualTo(3
                        + 3
                        + tokens(O200K, "user")
                        + tokens(O200K, USER)
                        + ConversationTokens.NON_TEXT_PART_TOKENS
                        + 3
                        + tokens(O200K, "assistant")
                        + tokens(O200K, SYSTEM));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/models", "/v1/files", "/v1/chat/completions/x", "/v2/chat/completions"})
    void otherPathsAreCountedOnlyAsRequestsAndTheirBodyIsNotRead(String path) {
        RequestEstimate e = ESTIMATOR.estimate(path, "not json at all".getBytes(UTF_8), DEFAULT_OUTPUT);

        assertThat(e).isEqualTo(new RequestEstimate(Endpoint.OTHER, null, 0, 0, false, false));
        assertThat(e.totalTokens()).isZero();
    }

    // --- encodings per model

    @Test
    void theMixedTextTellsTheEncodingsApart() {
        assertThat(tokens(O200K, MIXED)).isNotEqualTo(tokens(CL100K, MIXED));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "gpt-4o",
                "gpt-4o-2024-08-06",
                "gpt-4o-mini",
                "gpt-4.1",
                "gpt-4.1-mini-2025-04-14",
                "gpt-5",
                "gpt-5-mini",
                "o1",
                "o3-mini",
                "o4-mini",
                "ft:gpt-4o-mini-2024-07-18:acme::abc123"
            })
    void currentOpenAiFamiliesUseO200k(String model) {
        assertThat(mixedPrompt(model)).isEqualTo(tokens(O200K, MIXED));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "gpt-4",
                "gpt-4-0613",
                "gpt-4-turbo",
                "gpt-3.5-turbo",
                "gpt-3.5-turbo-0125",
                "text-embedding-3-small",
                "gpt-4-some-future-snapshot"
            })
    void olderFamiliesUseCl100k(String model) {
        assertThat(mixedPrompt(model)).isEqualTo(tokens(CL100K, MIXED));
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama-3.1-70b-instruct", "mistral-large", "openai/gpt-4o", "o1x"})
    void unknownModelsFallBackToO200k(String model) {
        assertThat(mixedPrompt(model)).isEqualTo(tokens(O200K, MIXED));
    }

    @Test
    void theEncodingIsOfferedForCountingStreamedOutput() {
        assertThat(ESTIMATOR.encodingFor("gpt-4o").getName()).isEqualTo("o200k_base");
        assertThat(ESTIMATOR.encodingFor("gpt-4").getName()).isEqualTo("cl100k_base");
    }

    // --- bad input

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "{\"model\":", "model=gpt-4o", "{\"model\":\"gpt-4o\"} trailing", "{'model':'x'}"})
    void aBodyThatIsNotJsonIsRejected(String body) {
        assertRejected("/v1/chat/completions", body, null, "We could not parse the JSON body of your request");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"[1,2]|an array", "\"text\"|a string", "42|an integer", "null|null"})
    void aBodyThatIsNotAnObjectIsRejected(String body, String got) {
        assertRejected("/v1/embeddings", body, null, "The request body must be a JSON object, but got " + got);
    }

    @Test
    void theModelIsRequiredAndMustBeAString() {
        assertRejected("/v1/chat/completions", "{\"messages\":[]}", "model", "You must provide a model parameter.");
        assertRejected(
                "/v1/embeddings", "{\"model\":\" \",\"input\":\"x\"}", "model", "You must provide a model parameter.");
        assertRejected(
                "/v1/responses",
                "{\"model\":4,\"input\":\"x\"}",
                "model",
                "Invalid type for 'model': expected a string, but got an integer instead.");
    }

    @Test
    void chatNeedsANonEmptyArrayOfMessageObjects() {
        assertRejected(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o\"}",
                "messages",
                "Missing required parameter: 'messages'.");
        assertRejected(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o\",\"messages\":{\"role\":\"user\"}}",
                "messages",
                "Invalid type for 'messages': expected an array, but got an object instead.");
        assertRejected(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o\",\"messages\":[]}",
                "messages",
                "Invalid 'messages': empty array.");
        assertRejected(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"a\"},\"b\"]}",
                "messages[1]",
                "Invalid type for 'messages[1]': expected an object, but got a string instead.");
        assertRejected(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":7}]}",
                "messages[0].content",
                "expected a string or an array, but got an integer");
        assertRejected(
                "/v1/chat/completions",
                "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}]}",
                "messages[0].content[0].text",
                "Missing required parameter: 'messages[0].content[0].text'.");
    }

    @Test
    void maxTokensMustBeAPositiveInteger() {
        assertChatRejected(
                ",\"max_tokens\":0",
                "max_tokens",
                "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead.");
        assertChatRejected(",\"max_completion_tokens\":-5", "max_completion_tokens", "but got -5 instead.");
        assertChatRejected(
                ",\"max_tokens\":\"100\"",
                "max_tokens",
                "Invalid type for 'max_tokens': expected an integer, but got a string instead.");
        assertChatRejected(",\"max_tokens\":12.5", "max_tokens", "expected an integer, but got a decimal instead.");
        assertChatRejected(",\"max_tokens\":1e400", "max_tokens", "expected an integer");
        assertChatRejected(
                ",\"max_tokens\":123456789012345678901234567890", "max_tokens", "integer above maximum value");
        assertChatRejected(",\"max_completion_tokens\":10,\"max_tokens\":-1", "max_tokens", "below minimum value");
        assertChatRejected(",\"n\":0", "n", "Invalid 'n': integer below minimum value.");
        assertRejected(
                "/v1/responses",
                "{\"model\":\"gpt-4o\",\"input\":\"x\",\"max_output_tokens\":false}",
                "max_output_tokens",
                "expected an integer, but got a boolean instead.");
    }

    @Test
    void streamMustBeABooleanAndStreamOptionsAnObject() {
        assertChatRejected(
                ",\"stream\":\"true\"",
                "stream",
                "Invalid type for 'stream': expected a boolean, but got a string instead.");
        assertChatRejected(
                ",\"stream\":true,\"stream_options\":true",
                "stream_options",
                "Invalid type for 'stream_options': expected an object, but got a boolean instead.");
        assertChatRejected(
                ",\"stream\":true,\"stream_options\":{\"include_usage\":1}",
                "stream_options.include_usage",
                "expected a boolean, but got an integer instead.");
    }

    @Test
    void inputsMustBeTextOrTokenIds() {
        assertRejected(
                "/v1/completions", "{\"model\":\"davinci-002\"}", "prompt", "Missing required parameter: 'prompt'.");
        assertRejected(
                "/v1/embeddings",
                "{\"model\":\"text-embedding-3-small\",\"input\":{}}",
                "input",
                "Invalid type for 'input': expected a string or an array, but got an object instead.");
        assertRejected(
                "/v1/embeddings",
                "{\"model\":\"text-embedding-3-small\",\"input\":[\"a\",3]}",
                "input[1]",
                "expected a string or an array of integers, but got an integer instead.");
        assertRejected(
                "/v1/embeddings",
                "{\"model\":\"text-embedding-3-small\",\"input\":[1,\"a\"]}",
                "input[1]",
                "expected an integer, but got a string instead.");
        assertRejected(
                "/v1/responses",
                "{\"model\":\"gpt-4o\",\"input\":5}",
                "input",
                "expected a string or an array, but got an integer instead.");
        assertRejected(
                "/v1/responses",
                "{\"model\":\"gpt-4o\",\"input\":\"x\",\"instructions\":[]}",
                "instructions",
                "expected a string, but got an array instead.");
    }

    @Test
    void aRequestWithoutAnOutputCapNamesTheFieldTheDefaultIsWrittenInto() {
        assertThat(chat("{\"model\":\"gpt-4o\"," + MESSAGES + "}").uncappedField())
                .isEqualTo("max_completion_tokens");
        assertThat(chat("{\"model\":\"gpt-4o\"," + MESSAGES + ",\"max_tokens\":null}")
                        .uncappedField())
                .isEqualTo("max_completion_tokens");
        assertThat(chat("{\"model\":\"gpt-4o\"," + MESSAGES + ",\"max_tokens\":5}")
                        .uncappedField())
                .isNull();
        assertThat(chat("{\"model\":\"gpt-4o\"," + MESSAGES + ",\"max_completion_tokens\":5}")
                        .uncappedField())
                .isNull();
        assertThat(estimate("/v1/completions", "{\"model\":\"davinci-002\",\"prompt\":\"x\"}")
                        .uncappedField())
                .isEqualTo("max_tokens");
        assertThat(estimate("/v1/responses", "{\"model\":\"gpt-4o\",\"input\":\"x\"}")
                        .uncappedField())
                .isEqualTo("max_output_tokens");
        assertThat(estimate("/v1/embeddings", "{\"model\":\"text-embedding-3-small\",\"input\":\"x\"}")
                        .uncappedField())
                .isNull();
    }

    @Test
    void imagesReserveAStandInPerImageBySizeAndQuality() {
        RequestEstimate ten = estimate(
                "/v1/images/generations",
                "{\"model\":\"gpt-image-1\",\"prompt\":\"a cat\",\"n\":10,\"size\":\"1024x1024\",\"quality\":\"high\"}");
        assertThat(ten.maxOutputTokens()).isEqualTo(10 * 4160);
        assertThat(ten.promptTokens()).isEqualTo(O200K.countTokensOrdinary("a cat"));
        assertThat(estimate(
                                "/v1/images/generations",
                                "{\"model\":\"gpt-image-1\",\"prompt\":\"x\",\"size\":\"1024x1024\",\"quality\":\"low\"}")
                        .maxOutputTokens())
                .isEqualTo(272);
        // No size, no quality, no model: the dearest image, for OpenAI's default model.
        RequestEstimate bare = estimate("/v1/images/generations", "{\"prompt\":\"x\"}");
        assertThat(bare.model()).isEqualTo("dall-e-2");
        assertThat(bare.maxOutputTokens()).isEqualTo(6240);
        assertRejected("/v1/images/generations", "{\"prompt\":\"x\",\"n\":11}", "n", "Expected a value <= 10");
        assertRejected("/v1/images/generations", "{\"n\":1}", "prompt", "Missing required parameter: 'prompt'.");
    }

    @Test
    void speechReservesOneTokenPerCharacterBesideItsText() {
        String input = "Hello there, général Kenobi 🎉".repeat(10);
        RequestEstimate speech = estimate(
                "/v1/audio/speech", "{\"model\":\"gpt-4o-mini-tts\",\"voice\":\"alloy\",\"input\":\"" + input + "\"}");
        assertThat(speech.maxOutputTokens()).isEqualTo(input.codePointCount(0, input.length()));
        assertThat(speech.promptTokens()).isEqualTo(O200K.countTokensOrdinary(input));
    }

    @Test
    void moderationsCountTheirInputAndNameADefaultModel() {
        RequestEstimate m = estimate("/v1/moderations", "{\"input\":[\"" + USER + "\",\"" + SYSTEM + "\"]}");
        assertThat(m.model()).isEqualTo("omni-moderation-latest");
        assertThat(m.promptTokens()).isEqualTo(O200K.countTokensOrdinary(USER) + O200K.countTokensOrdinary(SYSTEM));
        assertThat(m.maxOutputTokens()).isZero();
    }

    @Test
    void aBatchIsCheckedForItsFileAndEndpointAndCostsNothingUntilItsFileIsKnown() {
        RequestEstimate batch = estimate(
                "/v1/batches",
                "{\"input_file_id\":\"file-1\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\"}");
        assertThat(batch.endpoint()).isEqualTo(Endpoint.BATCHES);
        assertThat(batch.totalTokens()).isZero();
        assertRejected(
                "/v1/batches",
                "{\"endpoint\":\"/v1/chat/completions\"}",
                "input_file_id",
                "Missing required parameter");
    }
}
