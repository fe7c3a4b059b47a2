package dev.sluice.gateway.surface;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The surface's rules alone: which request lines go on, and how the others are refused. */
class ApiSurfaceTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/chat/completions",
                "/v1/files/file-abc123/content",
                "/v1/models/ft:gpt-4o-mini:org::id9",
                "/v1/fine_tuning/jobs/ftjob-1/events",
                "/v1/vector_stores/vs_1/files",
                "/v1/models/gpt-4.1-mini"
            })
    void plainPathsOfKnownFamiliesGoOn(String path) {
        String method = path.startsWith("/v1/chat") ? "POST" : "GET";
        assertThat(ApiSurface.check(method, path, "application/json")).isNull();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/../admin",
                "/v1/%2e%2e/admin",
                "/v1/./files",
                "/v1//files",
                "/v1/files/",
                "/v1/files%2fx",
                "/v1/files/a\\b",
                "/v1/files/...",
                "/v1/files/a b",
                "/v1x/files",
                "/v1/files/%00"
            })
    void anythingThatCouldBeReadTwoWaysIsA400(String path) {
        ApiSurface.Refusal r = ApiSurface.check("GET", path, null);
        assertThat(r.status().value()).isEqualTo(400);
        assertThat(r.code()).isEqualTo("invalid_path");
    }

    @Test
    void unknownFamiliesAre404() {
        assertThat(ApiSurface.check("GET", "/v1", null).code()).isEqualTo("unknown_url");
        assertThat(ApiSurface.check("GET", "/v1/organization/users", null)
                        .status()
                        .value())
                .isEqualTo(404);
    }

    /** Only the table's exact paths: a variant of a metered path is not a free pass-through any more. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/chat/Completions",
                "/v1/chat/completions.",
                "/v1/Chat/completions",
                "/v1/chat/completions~",
                "/v1/embeddings/x",
                "/v1/files/file-1/content/more",
                "/v1/chat",
                "/v1/audio",
                "/v1/images/generation"
            })
    void variantsOfKnownPathsAre404(String path) {
        ApiSurface.Refusal r = ApiSurface.check("POST", path, "application/json");
        assertThat(r).as(path).isNotNull();
        assertThat(r.code()).isEqualTo("unknown_url");
    }

    @Test
    void uploadsTakeMultipartAndJsonOperationsJson() {
        assertThat(ApiSurface.check("POST", "/v1/files", "multipart/form-data; boundary=abc"))
                .isNull();
        for (String bad : new String[] {null, "application/json", "multipart/form-data", "application/octet-stream"}) {
            assertThat(ApiSurface.check("POST", "/v1/files", bad).status().value())
                    .as(bad)
                    .isEqualTo(415);
        }
        assertThat(ApiSurface.check("POST", "/v1/images/edits", "application/json"))
                .isNull();
        assertThat(ApiSurface.check("POST", "/v1/images/edits", "multipart/form-data; boundary=x"))
                .isNull();
        assertThat(ApiSurface.check("POST", "/v1/vector_stores", "multipart/form-data; boundary=x")
                        .status()
                        .value())
                .isEqualTo(415);
    }

    @Test
    void methodsAreCheckedPerEndpointAndInventedOnesRefused() {
        assertThat(ApiSurface.check("GET", "/v1/responses", null).allow()).isEqualTo("POST");
        assertThat(ApiSurface.check("GET", "/v1/responses/resp_1", null)).isNull(); // retrieve a stored response
        assertThat(ApiSurface.check("POST", "/v1/models", "application/json").allow())
                .isEqualTo("GET");
        assertThat(ApiSurface.check("PATCH", "/v1/files", null).allow()).isEqualTo("GET, POST");
        assertThat(ApiSurface.check("POST", "/v1/files/file-1", null).allow()).isEqualTo("GET, DELETE");
        assertThat(ApiSurface.check("BREW", "/v1/files", null).status().value()).isEqualTo(405);
    }

    @Test
    void countedEndpointsTakeJsonAsSdksSendIt() {
        for (String ok : new String[] {
            null,
            "",
            "application/json",
            "application/json; charset=utf-8",
            "APPLICATION/JSON",
            "application/vnd.api+json"
        }) {
            assertThat(ApiSurface.check("POST", "/v1/embeddings", ok)).as(ok).isNull();
        }
        for (String bad : new String[] {
            "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/json"
        }) {
            assertThat(ApiSurface.check("POST", "/v1/embeddings", bad).status().value())
                    .as(bad)
                    .isEqualTo(415);
        }
        assertThat(ApiSurface.check("POST", "/v1/audio/transcriptions", "multipart/form-data; boundary=x"))
                .isNull();
    }

    /** The hand-written segment check accepts exactly what the pattern it replaced accepted. */
    @Test
    void segmentCheckAgreesWithItsPattern() {
        Pattern segment = Pattern.compile("[A-Za-z0-9._~:@-]+");
        String alphabet = "aZ09._~:@-%/\\ \u00e9+!*'()[]#?=&$,;";
        Random random = new Random(16);
        for (int i = 0; i < 100_000; i++) {
            StringBuilder s = new StringBuilder();
            int length = random.nextInt(6);
            for (int k = 0; k < length; k++)
                s.append(random.nextInt(3) == 0 ? '.' : alphabet.charAt(random.nextInt(alphabet.length())));
            String text = s.toString();
            boolean expected = segment.matcher(text).matches() && !text.chars().allMatch(c -> c == '.');
            assertThat(ApiSurface.isPlainSegment(text)).as("'%s'", text).isEqualTo(expected);
        }
    }
}
