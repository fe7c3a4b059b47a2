package dev.sluice.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

/** The error body's exact bytes: SDKs parse it, and clients may compare it. */
class OpenAiErrorsTest {
    @Test
    void writesTheFourFieldsInOpenAisOrderWithNullsForTheMissingOnes() {
        assertThat(OpenAiErrors.body("server_error", null, "down"))
                .isEqualTo("{\"error\":{\"message\":\"down\",\"type\":\"server_error\",\"code\":null,\"param\":null}}");
    }

    @Test
    void escapesControlCharactersAsItAlwaysHas() {
        String message = "a\"b\\c\nd\re\tf\bg\fh\u0001i\u001fj/é\u2028\ud83d\ude00";
        assertThat(OpenAiErrors.body("invalid_request_error", "x", message))
                .isEqualTo(
                        "{\"error\":{\"message\":"
                                + "\"a\\\"b\\\\c\\nd\\re\\tf\\u0008g\\u000ch\\u0001i\\u001fj/é\u2028\ud83d\ude00\",\"type\":\"invalid_request_error\",\"code\":\"x\",\"param\":null}}");
    }

    @Test
    void writesExtraFieldsAfterTheFour() {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/v1/chat/completions"));
        OpenAiErrors.write(
                        exchange,
                        HttpStatus.SERVICE_UNAVAILABLE,
                        "server_error",
                        "gateway_busy",
                        "busy",
                        Map.of("position", 3))
                .block();
        assertThat(exchange.getResponse().getBodyAsString().block())
                .isEqualTo(
                        "{\"error\":{\"message\":\"busy\",\"type\":\"server_error\",\"code\":\"gateway_busy\",\"param\":null,\"position\":3}}");
    }
}
