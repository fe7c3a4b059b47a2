package dev.sluice.gateway.surface;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.Family;
import dev.sluice.gateway.estimate.Endpoint;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The table alone: what it holds, how a path matches it, which query parameters pass. */
class EndpointTableTest {
    static final long JSON_LIMIT = 8 << 20;
    static final long FILE_LIMIT = 32 << 20;
    final EndpointTable table = EndpointTable.openAi(JSON_LIMIT, FILE_LIMIT);

    EndpointTable.Match match(String method, String path) {
        return table.match(method, List.of(path.substring(4).split("/")));
    }

    Operation op(String method, String path) {
        EndpointTable.Match m = match(method, path);
        assertThat(m).as(method + " " + path).isInstanceOf(EndpointTable.Found.class);
        return ((EndpointTable.Found) m).matched().operation();
    }

    @Test
    void theMeteredOperationsAreExactlyThePathsTheEstimateKnows() {
        Set<String> metered = table.operations().stream()
                .filter(o -> o.kind() == Kind.METERED)
                .map(Operation::toString)
                .collect(Collectors.toSet());
        Set<String> estimated = Arrays.stream(Endpoint.values())
                .map(Endpoint::path)
                .filter(Objects::nonNull)
                .map(p -> "POST " + p)
                .collect(Collectors.toSet());
        assertThat(metered).isEqualTo(estimated);
    }

    @Test
    void everyOperationIsOncePlainAndOfTheFamilyItsPathNames() {
        Set<String> seen = new HashSet<>();
        for (Operation o : table.operations()) {
            assertThat(seen.add(o.toString())).as("twice: " + o).isTrue();
            assertThat(o.segments().get(0))
                    .as(o.toString())
                    .isEqualTo(o.family().wireName());
            for (String s : o.segments()) {
                assertThat(s.startsWith("{") || ApiSurface.isPlainSegment(s))
                        .as(o + ": " + s)
                        .isTrue();
            }
            assertThat(o.method()).isIn("GET", "POST", "DELETE");
        }
        assertThat(table.operations()).extracting(Operation::family).containsAll(Arrays.asList(Family.values()));
    }

    @Test
    void bodiesAndTheirLimitsFollowTheBodyType() {
        for (Operation o : table.operations()) {
            long expected = switch (o.body()) {
                case NONE -> 0;
                case JSON -> JSON_LIMIT;
                case MULTIPART, JSON_OR_MULTIPART -> FILE_LIMIT;
            };
            assertThat(o.maxBodyBytes()).as(o.toString()).isEqualTo(expected);
            if (o.method().equals("GET") || o.method().equals("DELETE"))
                assertThat(o.body()).as(o.toString()).isEqualTo(BodyType.NONE);
        }
        assertThat(op("POST", "/v1/files").body()).isEqualTo(BodyType.MULTIPART);
        assertThat(op("POST", "/v1/uploads/upload_1/parts").maxBodyBytes()).isEqualTo(FILE_LIMIT);
    }

    @Test
    void onlyTheExactPathMatchesAndTheRestIsUnknown() {
        for (String path : List.of(
                "/v1/chat/Completions",
                "/v1/chat/completions.",
                "/v1/chat",
                "/v1/files/file-1/content/x",
                "/v1/organization/users",
                "/v1/videos",
                "/v1/audio/voices")) {
            assertThat(match("POST", path)).as(path).isInstanceOf(EndpointTable.Unknown.class);
        }
        assertThat(match("PUT", "/v1/files/file-1")).isEqualTo(new EndpointTable.WrongMethod(List.of("GET", "DELETE")));
        assertThat(match("DELETE", "/v1/models/gpt-4o")).isEqualTo(new EndpointTable.WrongMethod(List.of("GET")));
    }

    @Test
    void aLiteralSegmentWinsOverAnIdAsTheProviderRoutesIt() {
        assertThat(op("POST", "/v1/threads/runs").kind()).isEqualTo(Kind.UNMETERED);
        assertThat(op("POST", "/v1/threads/thread_1").kind()).isEqualTo(Kind.CHANGE);
        assertThat(op("POST", "/v1/responses/compact").kind()).isEqualTo(Kind.UNMETERED);
        assertThat(op("POST", "/v1/responses/input_tokens").kind()).isEqualTo(Kind.READ);
        assertThat(op("GET", "/v1/responses/resp_1").kind()).isEqualTo(Kind.READ);
    }

    @Test
    void theMatchCarriesTheIdSegmentsByName() {
        MatchedOperation m =
                ((EndpointTable.Found) match("GET", "/v1/threads/thread_1/runs/run_2/steps/step_3")).matched();
        assertThat(m.operation().template()).isEqualTo("/v1/threads/{thread_id}/runs/{run_id}/steps/{step_id}");
        assertThat(m.id("thread_id")).isEqualTo("thread_1");
        assertThat(m.idValues()).containsExactly("thread_1", "run_2", "step_3");
        assertThat(((EndpointTable.Found) match("POST", "/v1/chat/completions"))
                        .matched()
                        .ids())
                .isEmpty();
    }

    @Test
    void kindsWhereTheyDecideWhatTheDefaultOpens() {
        assertThat(op("POST", "/v1/realtime/client_secrets").kind()).isEqualTo(Kind.CREDENTIAL);
        assertThat(table.operations().stream().filter(o -> o.family() == Family.REALTIME))
                .allMatch(o -> o.kind() == Kind.CREDENTIAL);
        assertThat(op("POST", "/v1/audio/transcriptions").kind()).isEqualTo(Kind.UNMETERED);
        assertThat(op("POST", "/v1/images/edits").kind()).isEqualTo(Kind.UNMETERED);
        assertThat(op("POST", "/v1/fine_tuning/jobs").kind()).isEqualTo(Kind.UNMETERED);
        assertThat(op("POST", "/v1/batches/batch_1/cancel").kind()).isEqualTo(Kind.CHANGE);
        assertThat(op("POST", "/v1/chat/completions/chatcmpl-1").kind()).isEqualTo(Kind.CHANGE);
        assertThat(op("DELETE", "/v1/files/file-1").kind()).isEqualTo(Kind.CHANGE);
        assertThat(op("GET", "/v1/files").kind()).isEqualTo(Kind.READ);
    }

    @Test
    void onlyTheParametersAnOperationTakesAreKeptAsSent() {
        Operation retrieve = op("GET", "/v1/responses/resp_1");
        assertThat(ApiSurfaceFilter.keptQuery(
                        "include=a&key=sk-x&stream=true&starting_after=2&api-version=1", retrieve))
                .isEqualTo("include=a&stream=true&starting_after=2");
        assertThat(ApiSurfaceFilter.keptQuery("include%5B%5D=a&include[]=b&includes=c&include[=d", retrieve))
                .isEqualTo("include%5B%5D=a&include[]=b");
        assertThat(ApiSurfaceFilter.keptQuery("key=x", retrieve)).isNull();
        assertThat(ApiSurfaceFilter.keptQuery("limit=2", op("GET", "/v1/models")))
                .isNull();
        assertThat(ApiSurfaceFilter.keptQuery(
                        "metadata[team]=a&metadata=b&model=gpt-4o&limit=%zz", op("GET", "/v1/chat/completions")))
                .isEqualTo("metadata[team]=a&metadata=b&model=gpt-4o&limit=%zz");
        assertThat(ApiSurfaceFilter.keptQuery("%zz=1&limit=3", op("GET", "/v1/files")))
                .isEqualTo("limit=3");
        assertThat(ApiSurfaceFilter.keptQuery("purpose=batch", op("POST", "/v1/chat/completions")))
                .isNull();
    }
}
