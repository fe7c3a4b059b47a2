package dev.sluice.gateway.estimate;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestRewriterTest {
    private final RequestRewriter rewriter = new RequestRewriter();

    /** Numbers, escapes, non-ASCII text and whitespace that a parse-and-reserialise would change. */
    private static final String FIELDS = "\"temperature\":0.70, \"top_p\":1e0,\t\"seed\":12345678901234567890123,"
            + "\n \"messages\":[{\"role\":\"user\",\"content\":\"caf\\u00e9 \\\"q\\\" 数据 🎉\"}]";

    private String includeUsage(String body) {
        return new String(rewriter.withIncludeUsage(body.getBytes(UTF_8)), UTF_8);
    }

    private String model(String body, String model) {
        return new String(rewriter.withModel(body.getBytes(UTF_8), model), UTF_8);
    }

    @Test
    void addsStreamOptionsAfterTheLastFieldKeepingEveryOtherByte() {
        String body = "{\"model\":\"gpt-4o\",\"stream\":true, " + FIELDS + " }";

        assertThat(includeUsage(body))
                .isEqualTo("{\"model\":\"gpt-4o\",\"stream\":true, " + FIELDS
                        + ",\"stream_options\":{\"include_usage\":true} }");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{}|{\"stream_options\":{\"include_usage\":true}}",
                "{\"stream_options\":{}}|{\"stream_options\":{\"include_usage\":true}}",
                "{\"stream_options\":{ }}|{\"stream_options\":{\"include_usage\":true }}",
                "{\"stream_options\":{\"include_usage\":false}}|{\"stream_options\":{\"include_usage\":true}}",
                "{\"stream_options\":{\"include_usage\" : null ,\"x\":1}}|{\"stream_options\":{\"include_usage\" : true ,\"x\":1}}",
                "{\"stream_options\":{\"x\":\"y\"},\"a\":1}|{\"stream_options\":{\"x\":\"y\",\"include_usage\":true},\"a\":1}",
                "{\"stream_options\":null,\"a\":1}|{\"stream_options\":{\"include_usage\":true},\"a\":1}",
                "{\"stream_options\":{\"include_usage\":true}}|{\"stream_options\":{\"include_usage\":true}}",
            })
    void setsIncludeUsageWhateverStreamOptionsHeld(String body, String expected) {
        assertThat(includeUsage(body)).isEqualTo(expected);
    }

    @Test
    void aStreamOptionsStringInsideAnotherFieldIsNotTouched() {
        String body = "{\"metadata\":{\"stream_options\":\"keep\"},\"note\":\"stream_options\"}";

        assertThat(includeUsage(body))
                .isEqualTo("{\"metadata\":{\"stream_options\":\"keep\"},\"note\":\"stream_options\""
                        + ",\"stream_options\":{\"include_usage\":true}}");
    }

    @Test
    void replacesTheModelKeepingEveryOtherByte() {
        String body = "{ \"stream\":true,\"model\" : \"gpt-4o\" , " + FIELDS + "}";

        assertThat(model(body, "gpt-4o-mini"))
                .isEqualTo("{ \"stream\":true,\"model\" : \"gpt-4o-mini\" , " + FIELDS + "}");
    }

    @Test
    void replacesEveryDuplicateModelAndANonStringOne() {
        assertThat(model("{\"model\":\"a\",\"model\":{\"x\":[1]}}", "b"))
                .isEqualTo("{\"model\":\"b\",\"model\":\"b\"}");
    }

    @Test
    void addsTheModelWhenTheBodyHasNone() {
        assertThat(model("{}", "gpt-4o-mini")).isEqualTo("{\"model\":\"gpt-4o-mini\"}");
        assertThat(model("{\"a\":1}", "m")).isEqualTo("{\"model\":\"m\",\"a\":1}");
    }

    @Test
    void escapesTheModelName() {
        assertThat(model("{\"model\":\"x\"}", "we\"ird\\name")).isEqualTo("{\"model\":\"we\\\"ird\\\\name\"}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "[]", "{\"model\":", "nope"})
    void refusesWhatIsNotAJsonObject(String body) {
        assertThatThrownBy(() -> includeUsage(body)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> model(body, "m")).isInstanceOf(InvalidRequestException.class);
    }

    private String capped(String body) {
        return new String(rewriter.withOutputCap(body.getBytes(UTF_8), "max_completion_tokens", 256), UTF_8);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{}|{\"max_completion_tokens\":256}",
                "{\"model\":\"m\"}|{\"model\":\"m\",\"max_completion_tokens\":256}",
                "{\"model\":\"m\" , \"n\":2 }|{\"model\":\"m\" , \"n\":2,\"max_completion_tokens\":256 }",
                "{\"max_completion_tokens\":null,\"n\":1}|{\"max_completion_tokens\":256,\"n\":1}",
                "{\"max_completion_tokens\":7}|{\"max_completion_tokens\":7}",
            })
    void writesTheCapWhereTheBodyHasNoneKeepingEveryOtherByte(String body, String expected) {
        assertThat(capped(body)).isEqualTo(expected);
    }

    @Test
    void theCapKeepsTheRestOfTheBodyByteForByte() {
        String body = "{\"model\":\"gpt-4o\", " + FIELDS + " }";
        assertThat(capped(body)).isEqualTo("{\"model\":\"gpt-4o\", " + FIELDS + ",\"max_completion_tokens\":256 }");
    }
}
