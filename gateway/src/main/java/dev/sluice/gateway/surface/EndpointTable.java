package dev.sluice.gateway.surface;

import static dev.sluice.gateway.config.Family.ASSISTANTS;
import static dev.sluice.gateway.config.Family.AUDIO;
import static dev.sluice.gateway.config.Family.BATCHES;
import static dev.sluice.gateway.config.Family.CHAT;
import static dev.sluice.gateway.config.Family.COMPLETIONS;
import static dev.sluice.gateway.config.Family.CONTAINERS;
import static dev.sluice.gateway.config.Family.CONVERSATIONS;
import static dev.sluice.gateway.config.Family.EMBEDDINGS;
import static dev.sluice.gateway.config.Family.EVALS;
import static dev.sluice.gateway.config.Family.FILES;
import static dev.sluice.gateway.config.Family.FINE_TUNING;
import static dev.sluice.gateway.config.Family.IMAGES;
import static dev.sluice.gateway.config.Family.MODELS;
import static dev.sluice.gateway.config.Family.MODERATIONS;
import static dev.sluice.gateway.config.Family.REALTIME;
import static dev.sluice.gateway.config.Family.RESPONSES;
import static dev.sluice.gateway.config.Family.SLUICE;
import static dev.sluice.gateway.config.Family.THREADS;
import static dev.sluice.gateway.config.Family.UPLOADS;
import static dev.sluice.gateway.config.Family.VECTOR_STORES;
import static dev.sluice.gateway.surface.BodyType.JSON;
import static dev.sluice.gateway.surface.BodyType.JSON_OR_MULTIPART;
import static dev.sluice.gateway.surface.BodyType.MULTIPART;
import static dev.sluice.gateway.surface.BodyType.NONE;
import static dev.sluice.gateway.surface.Kind.CHANGE;
import static dev.sluice.gateway.surface.Kind.CREDENTIAL;
import static dev.sluice.gateway.surface.Kind.METERED;
import static dev.sluice.gateway.surface.Kind.READ;
import static dev.sluice.gateway.surface.Kind.UNMETERED;

import dev.sluice.gateway.config.Family;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every operation of OpenAI's API that Sluice serves, exactly (method, path template, case and
 * all; from the API reference, openai/openai-openapi), and the gateway's own {@code GET /v1/sluice/usage}: a path that is not one of them is a 404
 * before anything else happens, so nothing reaches the provider with a meaning the gateway did
 * not check. Pure.
 *
 * <p>The kinds, where the reference leaves room for a choice:
 * <ul>
 *   <li>UNMETERED: thread runs (create, create-and-run, submit tool outputs: each generates),
 *       fine-tuning jobs (create, resume) and grader runs, eval runs, container creation (priced
 *       per session), vector-store file attachment and file batches (storage priced per GB-day,
 *       search queries), audio transcriptions and translations (priced per audio minute), image
 *       edits and variations (not estimated), {@code POST /v1/responses/compact} (runs a model),
 *       and uploads: an upload makes a file of up to 8 GB that Sluice never reads, so its size
 *       passes the file limit and a batch on it could not be estimated.</li>
 *   <li>READ though a POST: {@code /v1/responses/input_tokens} (a free count) and
 *       {@code /v1/fine_tuning/alpha/graders/validate}.</li>
 *   <li>CREDENTIAL: the realtime client secrets and sessions (each returns an ephemeral key for
 *       the provider) and the realtime websocket, which would carry the provider's key.</li>
 * </ul>
 * Not served (404): the organization and project administration APIs (an admin key's), videos,
 * skills, ChatKit, custom voices and voice consents (identity-bound assets of the account),
 * fine-tuned checkpoint permissions (they share a model outside the account), realtime WebRTC
 * calls (SDP bodies), and {@code DELETE /v1/models/{model}} (models are the gateway's).
 */
public final class EndpointTable {
    private static final Set<String> LIST = Set.of("limit", "after", "before", "order");

    private final List<Operation> operations;
    /** Each operation with its template split once: matching runs for every request. */
    private final List<Compiled> compiled;

    private record Compiled(Operation op, List<String> segments) {}

    private EndpointTable(List<Operation> operations) {
        this.operations = List.copyOf(operations);
        this.compiled =
                this.operations.stream().map(o -> new Compiled(o, o.segments())).toList();
    }

    /** What a request line matched: an operation, a known path with other methods, or nothing. */
    public sealed interface Match {}

    public record Found(MatchedOperation matched) implements Match {}

    /** The path is known, the method is not one of its operations'. */
    public record WrongMethod(List<String> allowed) implements Match {}

    public record Unknown() implements Match {}

    /**
     * OpenAI's operations, with these body limits.
     *
     * @param jsonBytes the largest JSON body (the estimate stage reads it whole)
     * @param fileBytes the largest upload (a file, an audio or image form, an upload part)
     */
    public static EndpointTable openAi(long jsonBytes, long fileBytes) {
        Builder b = new Builder(jsonBytes, fileBytes);
        b.family(CHAT)
                .post("/v1/chat/completions", METERED, JSON)
                .get("/v1/chat/completions", "model", "metadata", "after", "limit", "order")
                .get("/v1/chat/completions/{completion_id}")
                .post("/v1/chat/completions/{completion_id}", CHANGE, JSON)
                .delete("/v1/chat/completions/{completion_id}")
                .get("/v1/chat/completions/{completion_id}/messages", "after", "limit", "order");
        b.family(COMPLETIONS).post("/v1/completions", METERED, JSON);
        b.family(EMBEDDINGS).post("/v1/embeddings", METERED, JSON);
        b.family(MODERATIONS).post("/v1/moderations", METERED, JSON);
        b.family(RESPONSES)
                .post("/v1/responses", METERED, JSON)
                .get("/v1/responses/{response_id}", "include", "stream", "starting_after", "include_obfuscation")
                .delete("/v1/responses/{response_id}")
                .post("/v1/responses/{response_id}/cancel", CHANGE, NONE)
                .get("/v1/responses/{response_id}/input_items", "limit", "order", "after", "before", "include")
                .post("/v1/responses/input_tokens", READ, JSON)
                .post("/v1/responses/compact", UNMETERED, JSON);
        b.family(IMAGES)
                .post("/v1/images/generations", METERED, JSON)
                .post("/v1/images/edits", UNMETERED, JSON_OR_MULTIPART)
                .post("/v1/images/variations", UNMETERED, MULTIPART);
        b.family(AUDIO)
                .post("/v1/audio/speech", METERED, JSON)
                .post("/v1/audio/transcriptions", UNMETERED, MULTIPART)
                .post("/v1/audio/translations", UNMETERED, MULTIPART);
        b.family(FILES).files("/v1/files", MULTIPART, "purpose", "limit", "order", "after");
        b.family(BATCHES)
                .post("/v1/batches", METERED, JSON)
                .get("/v1/batches", "after", "limit")
                .get("/v1/batches/{batch_id}")
                .post("/v1/batches/{batch_id}/cancel", CHANGE, NONE);
        b.family(UPLOADS)
                .post("/v1/uploads", UNMETERED, JSON)
                .post("/v1/uploads/{upload_id}/cancel", CHANGE, NONE)
                .post("/v1/uploads/{upload_id}/complete", UNMETERED, JSON)
                .post("/v1/uploads/{upload_id}/parts", UNMETERED, MULTIPART);
        b.family(VECTOR_STORES)
                .objects("/v1/vector_stores", "{vector_store_id}", CHANGE, LIST)
                .post("/v1/vector_stores/{vector_store_id}/search", UNMETERED, JSON)
                .objects("/v1/vector_stores/{vector_store_id}/files", "{file_id}", UNMETERED, with(LIST, "filter"))
                .get("/v1/vector_stores/{vector_store_id}/files/{file_id}/content")
                .post("/v1/vector_stores/{vector_store_id}/file_batches", UNMETERED, JSON)
                .get("/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}")
                .post("/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel", CHANGE, NONE)
                .get("/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/files", with(LIST, "filter"));
        b.family(ASSISTANTS).objects("/v1/assistants", "{assistant_id}", CHANGE, LIST);
        b.family(THREADS)
                .post("/v1/threads", CHANGE, JSON)
                .post("/v1/threads/runs", UNMETERED, JSON)
                .get("/v1/threads/{thread_id}")
                .post("/v1/threads/{thread_id}", CHANGE, JSON)
                .delete("/v1/threads/{thread_id}")
                .objects("/v1/threads/{thread_id}/messages", "{message_id}", CHANGE, with(LIST, "run_id"))
                .get("/v1/threads/{thread_id}/runs", LIST)
                .post("/v1/threads/{thread_id}/runs", UNMETERED, JSON, "include")
                .get("/v1/threads/{thread_id}/runs/{run_id}")
                .post("/v1/threads/{thread_id}/runs/{run_id}", CHANGE, JSON)
                .post("/v1/threads/{thread_id}/runs/{run_id}/cancel", CHANGE, NONE)
                .post("/v1/threads/{thread_id}/runs/{run_id}/submit_tool_outputs", UNMETERED, JSON)
                .get("/v1/threads/{thread_id}/runs/{run_id}/steps", with(LIST, "include"))
                .get("/v1/threads/{thread_id}/runs/{run_id}/steps/{step_id}", "include");
        b.family(FINE_TUNING)
                .post("/v1/fine_tuning/jobs", UNMETERED, JSON)
                .get("/v1/fine_tuning/jobs", "after", "limit", "metadata")
                .get("/v1/fine_tuning/jobs/{fine_tuning_job_id}")
                .post("/v1/fine_tuning/jobs/{fine_tuning_job_id}/cancel", CHANGE, NONE)
                .post("/v1/fine_tuning/jobs/{fine_tuning_job_id}/pause", CHANGE, NONE)
                .post("/v1/fine_tuning/jobs/{fine_tuning_job_id}/resume", UNMETERED, NONE)
                .get("/v1/fine_tuning/jobs/{fine_tuning_job_id}/checkpoints", "after", "limit")
                .get("/v1/fine_tuning/jobs/{fine_tuning_job_id}/events", "after", "limit")
                .post("/v1/fine_tuning/alpha/graders/run", UNMETERED, JSON)
                .post("/v1/fine_tuning/alpha/graders/validate", READ, JSON);
        b.family(EVALS)
                .objects("/v1/evals", "{eval_id}", CHANGE, "after", "limit", "order", "order_by")
                .get("/v1/evals/{eval_id}/runs", "after", "limit", "order", "status")
                .post("/v1/evals/{eval_id}/runs", UNMETERED, JSON)
                .get("/v1/evals/{eval_id}/runs/{run_id}")
                .post("/v1/evals/{eval_id}/runs/{run_id}", CHANGE, NONE)
                .delete("/v1/evals/{eval_id}/runs/{run_id}")
                .get("/v1/evals/{eval_id}/runs/{run_id}/output_items", "after", "limit", "status", "order")
                .get("/v1/evals/{eval_id}/runs/{run_id}/output_items/{output_item_id}");
        b.family(CONTAINERS)
                .get("/v1/containers", "limit", "order", "after", "name")
                .post("/v1/containers", UNMETERED, JSON)
                .get("/v1/containers/{container_id}")
                .delete("/v1/containers/{container_id}")
                .files("/v1/containers/{container_id}/files", JSON_OR_MULTIPART, "limit", "order", "after");
        b.family(CONVERSATIONS)
                .post("/v1/conversations", CHANGE, JSON)
                .get("/v1/conversations/{conversation_id}")
                .post("/v1/conversations/{conversation_id}", CHANGE, JSON)
                .delete("/v1/conversations/{conversation_id}")
                .get("/v1/conversations/{conversation_id}/items", "limit", "order", "after", "include")
                .post("/v1/conversations/{conversation_id}/items", CHANGE, JSON, "include")
                .get("/v1/conversations/{conversation_id}/items/{item_id}", "include")
                .delete("/v1/conversations/{conversation_id}/items/{item_id}");
        // realtime: every operation hands the tenant the account
        b.family(REALTIME)
                .op("GET", "/v1/realtime", CREDENTIAL, NONE, "model", "call_id")
                .post("/v1/realtime/client_secrets", CREDENTIAL, JSON)
                .post("/v1/realtime/sessions", CREDENTIAL, JSON)
                .post("/v1/realtime/transcription_sessions", CREDENTIAL, JSON)
                .post("/v1/realtime/translations/client_secrets", CREDENTIAL, JSON);
        // models: answered by the gateway (surface/ModelsFilter)
        b.family(MODELS).get("/v1/models").get("/v1/models/{model}");
        // the gateway's own, not OpenAI's: a tenant's usage and budgets, answered by spend/UsageFilter
        b.family(SLUICE).get("/v1/sluice/usage");
        return new EndpointTable(b.operations);
    }

    public List<Operation> operations() {
        return operations;
    }

    /**
     * The operation {@code method} on {@code segments} (the path's segments after {@code /v1},
     * each already a plain segment). Where a literal and a variable both match (POST
     * /v1/threads/runs against POST /v1/threads/{thread_id}), the template with more literal
     * segments wins, as the provider routes it.
     */
    public Match match(String method, List<String> segments) {
        Compiled best = null;
        int bestLiterals = -1;
        Set<String> allowed = new LinkedHashSet<>();
        for (Compiled c : compiled) {
            int literals = literalsMatching(c.segments(), segments);
            if (literals < 0) continue;
            allowed.add(c.op().method());
            if (c.op().method().equals(method) && literals > bestLiterals) {
                best = c;
                bestLiterals = literals;
            }
        }
        if (best != null) return new Found(new MatchedOperation(best.op(), ids(best.segments(), segments)));
        if (!allowed.isEmpty()) return new WrongMethod(List.copyOf(allowed));
        return new Unknown();
    }

    /** How many literal segments of the template the path matches exactly; -1 when it does not match. */
    private static int literalsMatching(List<String> template, List<String> path) {
        if (template.size() != path.size()) return -1;
        int literals = 0;
        for (int i = 0; i < template.size(); i++) {
            String t = template.get(i);
            if (isVariable(t)) continue;
            if (!t.equals(path.get(i))) return -1;
            literals++;
        }
        return literals;
    }

    private static Map<String, String> ids(List<String> template, List<String> path) {
        Map<String, String> ids = new LinkedHashMap<>();
        for (int i = 0; i < template.size(); i++) {
            String t = template.get(i);
            if (isVariable(t)) ids.put(t.substring(1, t.length() - 1), path.get(i));
        }
        return ids;
    }

    private static boolean isVariable(String segment) {
        return segment.startsWith("{") && segment.endsWith("}");
    }

    private static String[] with(Set<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /**
     * Writes the table a family at a time, a row an operation (or a collection's usual ones), and
     * says once what every row of a kind shares: a GET reads and a DELETE changes, neither with a
     * body; a POST names what it does and its body.
     */
    private static final class Builder {
        final long jsonBytes;
        final long fileBytes;
        final List<Operation> operations = new ArrayList<>();

        Builder(long jsonBytes, long fileBytes) {
            this.jsonBytes = jsonBytes;
            this.fileBytes = fileBytes;
        }

        Rows family(Family family) {
            return new Rows(family);
        }

        final class Rows {
            private final Family family;

            Rows(Family family) {
                this.family = family;
            }

            Rows get(String template, Set<String> query) {
                return get(template, query.toArray(String[]::new));
            }

            Rows get(String template, String... query) {
                return op("GET", template, READ, NONE, query);
            }

            Rows post(String template, Kind kind, BodyType body, String... query) {
                return op("POST", template, kind, body, query);
            }

            Rows delete(String template) {
                return op("DELETE", template, CHANGE, NONE);
            }

            /**
             * A collection's five operations, in the reference's order: list, create (of
             * {@code create}'s kind), retrieve, modify and delete one by its {@code id}.
             */
            Rows objects(String collection, String id, Kind create, Set<String> listQuery) {
                return objects(collection, id, create, listQuery.toArray(String[]::new));
            }

            Rows objects(String collection, String id, Kind create, String... listQuery) {
                String one = collection + "/" + id;
                return get(collection, listQuery)
                        .post(collection, create, JSON)
                        .get(one)
                        .post(one, CHANGE, JSON)
                        .delete(one);
            }

            /** Files: list, upload (a {@code body}), retrieve, delete one by {@code {file_id}}, and read its content. */
            Rows files(String collection, BodyType body, String... listQuery) {
                String one = collection + "/{file_id}";
                return get(collection, listQuery)
                        .post(collection, CHANGE, body)
                        .get(one)
                        .delete(one)
                        .get(one + "/content");
            }

            Rows op(String method, String template, Kind kind, BodyType body, String... query) {
                long max = switch (body) {
                    case NONE -> 0;
                    case JSON -> jsonBytes;
                    case MULTIPART, JSON_OR_MULTIPART -> fileBytes;
                };
                operations.add(new Operation(method, template, family, kind, Set.of(query), body, max));
                return this;
            }
        }
    }
}
