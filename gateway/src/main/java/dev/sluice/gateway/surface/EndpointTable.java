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
 * all; from the API reference, openai/openai-openapi): a path that is not one of them is a 404
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

    private record Compiled(Operation op, List<String> segments) {
    }

    private EndpointTable(List<Operation> operations) {
        this.operations = List.copyOf(operations);
        this.compiled = this.operations.stream().map(o -> new Compiled(o, o.segments())).toList();
    }

    /** What a request line matched: an operation, a known path with other methods, or nothing. */
    public sealed interface Match {
    }

    public record Found(MatchedOperation matched) implements Match {
    }

    /** The path is known, the method is not one of its operations'. */
    public record WrongMethod(List<String> allowed) implements Match {
    }

    public record Unknown() implements Match {
    }

    /**
     * OpenAI's operations, with these body limits.
     *
     * @param jsonBytes the largest JSON body (the estimate stage reads it whole)
     * @param fileBytes the largest upload (a file, an audio or image form, an upload part)
     */
    public static EndpointTable openAi(long jsonBytes, long fileBytes) {
        Builder b = new Builder(jsonBytes, fileBytes);
        // chat
        b.op("POST", "/v1/chat/completions", CHAT, METERED, JSON);
        b.op("GET", "/v1/chat/completions", CHAT, READ, NONE, "model", "metadata", "after", "limit", "order");
        b.op("GET", "/v1/chat/completions/{completion_id}", CHAT, READ, NONE);
        b.op("POST", "/v1/chat/completions/{completion_id}", CHAT, CHANGE, JSON);
        b.op("DELETE", "/v1/chat/completions/{completion_id}", CHAT, CHANGE, NONE);
        b.op("GET", "/v1/chat/completions/{completion_id}/messages", CHAT, READ, NONE, "after", "limit", "order");
        // completions, embeddings, moderations
        b.op("POST", "/v1/completions", COMPLETIONS, METERED, JSON);
        b.op("POST", "/v1/embeddings", EMBEDDINGS, METERED, JSON);
        b.op("POST", "/v1/moderations", MODERATIONS, METERED, JSON);
        // responses
        b.op("POST", "/v1/responses", RESPONSES, METERED, JSON);
        b.op("GET", "/v1/responses/{response_id}", RESPONSES, READ, NONE, "include", "stream", "starting_after",
                "include_obfuscation");
        b.op("DELETE", "/v1/responses/{response_id}", RESPONSES, CHANGE, NONE);
        b.op("POST", "/v1/responses/{response_id}/cancel", RESPONSES, CHANGE, NONE);
        b.op("GET", "/v1/responses/{response_id}/input_items", RESPONSES, READ, NONE, "limit", "order", "after", "before",
                "include");
        b.op("POST", "/v1/responses/input_tokens", RESPONSES, READ, JSON);
        b.op("POST", "/v1/responses/compact", RESPONSES, UNMETERED, JSON);
        // images
        b.op("POST", "/v1/images/generations", IMAGES, METERED, JSON);
        b.op("POST", "/v1/images/edits", IMAGES, UNMETERED, JSON_OR_MULTIPART);
        b.op("POST", "/v1/images/variations", IMAGES, UNMETERED, MULTIPART);
        // audio
        b.op("POST", "/v1/audio/speech", AUDIO, METERED, JSON);
        b.op("POST", "/v1/audio/transcriptions", AUDIO, UNMETERED, MULTIPART);
        b.op("POST", "/v1/audio/translations", AUDIO, UNMETERED, MULTIPART);
        // files
        b.op("GET", "/v1/files", FILES, READ, NONE, "purpose", "limit", "order", "after");
        b.op("POST", "/v1/files", FILES, CHANGE, MULTIPART);
        b.op("GET", "/v1/files/{file_id}", FILES, READ, NONE);
        b.op("DELETE", "/v1/files/{file_id}", FILES, CHANGE, NONE);
        b.op("GET", "/v1/files/{file_id}/content", FILES, READ, NONE);
        // batches
        b.op("POST", "/v1/batches", BATCHES, METERED, JSON);
        b.op("GET", "/v1/batches", BATCHES, READ, NONE, "after", "limit");
        b.op("GET", "/v1/batches/{batch_id}", BATCHES, READ, NONE);
        b.op("POST", "/v1/batches/{batch_id}/cancel", BATCHES, CHANGE, NONE);
        // uploads
        b.op("POST", "/v1/uploads", UPLOADS, UNMETERED, JSON);
        b.op("POST", "/v1/uploads/{upload_id}/cancel", UPLOADS, CHANGE, NONE);
        b.op("POST", "/v1/uploads/{upload_id}/complete", UPLOADS, UNMETERED, JSON);
        b.op("POST", "/v1/uploads/{upload_id}/parts", UPLOADS, UNMETERED, MULTIPART);
        // vector stores
        b.op("GET", "/v1/vector_stores", VECTOR_STORES, READ, NONE, LIST);
        b.op("POST", "/v1/vector_stores", VECTOR_STORES, CHANGE, JSON);
        b.op("GET", "/v1/vector_stores/{vector_store_id}", VECTOR_STORES, READ, NONE);
        b.op("POST", "/v1/vector_stores/{vector_store_id}", VECTOR_STORES, CHANGE, JSON);
        b.op("DELETE", "/v1/vector_stores/{vector_store_id}", VECTOR_STORES, CHANGE, NONE);
        b.op("POST", "/v1/vector_stores/{vector_store_id}/search", VECTOR_STORES, UNMETERED, JSON);
        b.op("GET", "/v1/vector_stores/{vector_store_id}/files", VECTOR_STORES, READ, NONE, with(LIST, "filter"));
        b.op("POST", "/v1/vector_stores/{vector_store_id}/files", VECTOR_STORES, UNMETERED, JSON);
        b.op("GET", "/v1/vector_stores/{vector_store_id}/files/{file_id}", VECTOR_STORES, READ, NONE);
        b.op("POST", "/v1/vector_stores/{vector_store_id}/files/{file_id}", VECTOR_STORES, CHANGE, JSON);
        b.op("DELETE", "/v1/vector_stores/{vector_store_id}/files/{file_id}", VECTOR_STORES, CHANGE, NONE);
        b.op("GET", "/v1/vector_stores/{vector_store_id}/files/{file_id}/content", VECTOR_STORES, READ, NONE);
        b.op("POST", "/v1/vector_stores/{vector_store_id}/file_batches", VECTOR_STORES, UNMETERED, JSON);
        b.op("GET", "/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}", VECTOR_STORES, READ, NONE);
        b.op("POST", "/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel", VECTOR_STORES, CHANGE, NONE);
        b.op("GET", "/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/files", VECTOR_STORES, READ, NONE,
                with(LIST, "filter"));
        // assistants
        b.op("GET", "/v1/assistants", ASSISTANTS, READ, NONE, LIST);
        b.op("POST", "/v1/assistants", ASSISTANTS, CHANGE, JSON);
        b.op("GET", "/v1/assistants/{assistant_id}", ASSISTANTS, READ, NONE);
        b.op("POST", "/v1/assistants/{assistant_id}", ASSISTANTS, CHANGE, JSON);
        b.op("DELETE", "/v1/assistants/{assistant_id}", ASSISTANTS, CHANGE, NONE);
        // threads
        b.op("POST", "/v1/threads", THREADS, CHANGE, JSON);
        b.op("POST", "/v1/threads/runs", THREADS, UNMETERED, JSON);
        b.op("GET", "/v1/threads/{thread_id}", THREADS, READ, NONE);
        b.op("POST", "/v1/threads/{thread_id}", THREADS, CHANGE, JSON);
        b.op("DELETE", "/v1/threads/{thread_id}", THREADS, CHANGE, NONE);
        b.op("GET", "/v1/threads/{thread_id}/messages", THREADS, READ, NONE, with(LIST, "run_id"));
        b.op("POST", "/v1/threads/{thread_id}/messages", THREADS, CHANGE, JSON);
        b.op("GET", "/v1/threads/{thread_id}/messages/{message_id}", THREADS, READ, NONE);
        b.op("POST", "/v1/threads/{thread_id}/messages/{message_id}", THREADS, CHANGE, JSON);
        b.op("DELETE", "/v1/threads/{thread_id}/messages/{message_id}", THREADS, CHANGE, NONE);
        b.op("GET", "/v1/threads/{thread_id}/runs", THREADS, READ, NONE, LIST);
        b.op("POST", "/v1/threads/{thread_id}/runs", THREADS, UNMETERED, JSON, "include");
        b.op("GET", "/v1/threads/{thread_id}/runs/{run_id}", THREADS, READ, NONE);
        b.op("POST", "/v1/threads/{thread_id}/runs/{run_id}", THREADS, CHANGE, JSON);
        b.op("POST", "/v1/threads/{thread_id}/runs/{run_id}/cancel", THREADS, CHANGE, NONE);
        b.op("POST", "/v1/threads/{thread_id}/runs/{run_id}/submit_tool_outputs", THREADS, UNMETERED, JSON);
        b.op("GET", "/v1/threads/{thread_id}/runs/{run_id}/steps", THREADS, READ, NONE, with(LIST, "include"));
        b.op("GET", "/v1/threads/{thread_id}/runs/{run_id}/steps/{step_id}", THREADS, READ, NONE, "include");
        // fine-tuning
        b.op("POST", "/v1/fine_tuning/jobs", FINE_TUNING, UNMETERED, JSON);
        b.op("GET", "/v1/fine_tuning/jobs", FINE_TUNING, READ, NONE, "after", "limit", "metadata");
        b.op("GET", "/v1/fine_tuning/jobs/{fine_tuning_job_id}", FINE_TUNING, READ, NONE);
        b.op("POST", "/v1/fine_tuning/jobs/{fine_tuning_job_id}/cancel", FINE_TUNING, CHANGE, NONE);
        b.op("POST", "/v1/fine_tuning/jobs/{fine_tuning_job_id}/pause", FINE_TUNING, CHANGE, NONE);
        b.op("POST", "/v1/fine_tuning/jobs/{fine_tuning_job_id}/resume", FINE_TUNING, UNMETERED, NONE);
        b.op("GET", "/v1/fine_tuning/jobs/{fine_tuning_job_id}/checkpoints", FINE_TUNING, READ, NONE, "after", "limit");
        b.op("GET", "/v1/fine_tuning/jobs/{fine_tuning_job_id}/events", FINE_TUNING, READ, NONE, "after", "limit");
        b.op("POST", "/v1/fine_tuning/alpha/graders/run", FINE_TUNING, UNMETERED, JSON);
        b.op("POST", "/v1/fine_tuning/alpha/graders/validate", FINE_TUNING, READ, JSON);
        // evals
        b.op("GET", "/v1/evals", EVALS, READ, NONE, "after", "limit", "order", "order_by");
        b.op("POST", "/v1/evals", EVALS, CHANGE, JSON);
        b.op("GET", "/v1/evals/{eval_id}", EVALS, READ, NONE);
        b.op("POST", "/v1/evals/{eval_id}", EVALS, CHANGE, JSON);
        b.op("DELETE", "/v1/evals/{eval_id}", EVALS, CHANGE, NONE);
        b.op("GET", "/v1/evals/{eval_id}/runs", EVALS, READ, NONE, "after", "limit", "order", "status");
        b.op("POST", "/v1/evals/{eval_id}/runs", EVALS, UNMETERED, JSON);
        b.op("GET", "/v1/evals/{eval_id}/runs/{run_id}", EVALS, READ, NONE);
        b.op("POST", "/v1/evals/{eval_id}/runs/{run_id}", EVALS, CHANGE, NONE);
        b.op("DELETE", "/v1/evals/{eval_id}/runs/{run_id}", EVALS, CHANGE, NONE);
        b.op("GET", "/v1/evals/{eval_id}/runs/{run_id}/output_items", EVALS, READ, NONE, "after", "limit", "status", "order");
        b.op("GET", "/v1/evals/{eval_id}/runs/{run_id}/output_items/{output_item_id}", EVALS, READ, NONE);
        // containers
        b.op("GET", "/v1/containers", CONTAINERS, READ, NONE, "limit", "order", "after", "name");
        b.op("POST", "/v1/containers", CONTAINERS, UNMETERED, JSON);
        b.op("GET", "/v1/containers/{container_id}", CONTAINERS, READ, NONE);
        b.op("DELETE", "/v1/containers/{container_id}", CONTAINERS, CHANGE, NONE);
        b.op("GET", "/v1/containers/{container_id}/files", CONTAINERS, READ, NONE, "limit", "order", "after");
        b.op("POST", "/v1/containers/{container_id}/files", CONTAINERS, CHANGE, JSON_OR_MULTIPART);
        b.op("GET", "/v1/containers/{container_id}/files/{file_id}", CONTAINERS, READ, NONE);
        b.op("DELETE", "/v1/containers/{container_id}/files/{file_id}", CONTAINERS, CHANGE, NONE);
        b.op("GET", "/v1/containers/{container_id}/files/{file_id}/content", CONTAINERS, READ, NONE);
        // conversations
        b.op("POST", "/v1/conversations", CONVERSATIONS, CHANGE, JSON);
        b.op("GET", "/v1/conversations/{conversation_id}", CONVERSATIONS, READ, NONE);
        b.op("POST", "/v1/conversations/{conversation_id}", CONVERSATIONS, CHANGE, JSON);
        b.op("DELETE", "/v1/conversations/{conversation_id}", CONVERSATIONS, CHANGE, NONE);
        b.op("GET", "/v1/conversations/{conversation_id}/items", CONVERSATIONS, READ, NONE, "limit", "order", "after", "include");
        b.op("POST", "/v1/conversations/{conversation_id}/items", CONVERSATIONS, CHANGE, JSON, "include");
        b.op("GET", "/v1/conversations/{conversation_id}/items/{item_id}", CONVERSATIONS, READ, NONE, "include");
        b.op("DELETE", "/v1/conversations/{conversation_id}/items/{item_id}", CONVERSATIONS, CHANGE, NONE);
        // realtime: every operation hands the tenant the account
        b.op("GET", "/v1/realtime", REALTIME, CREDENTIAL, NONE, "model", "call_id");
        b.op("POST", "/v1/realtime/client_secrets", REALTIME, CREDENTIAL, JSON);
        b.op("POST", "/v1/realtime/sessions", REALTIME, CREDENTIAL, JSON);
        b.op("POST", "/v1/realtime/transcription_sessions", REALTIME, CREDENTIAL, JSON);
        b.op("POST", "/v1/realtime/translations/client_secrets", REALTIME, CREDENTIAL, JSON);
        // models: answered by the gateway (surface/ModelsFilter)
        b.op("GET", "/v1/models", MODELS, READ, NONE);
        b.op("GET", "/v1/models/{model}", MODELS, READ, NONE);
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

    private static final class Builder {
        final long jsonBytes;
        final long fileBytes;
        final List<Operation> operations = new ArrayList<>();

        Builder(long jsonBytes, long fileBytes) {
            this.jsonBytes = jsonBytes;
            this.fileBytes = fileBytes;
        }

        void op(String method, String template, Family family, Kind kind, BodyType body, Set<String> query) {
            op(method, template, family, kind, body, query.toArray(String[]::new));
        }

        void op(String method, String template, Family family, Kind kind, BodyType body, String... query) {
            long max = switch (body) {
                case NONE -> 0;
                case JSON -> jsonBytes;
                case MULTIPART, JSON_OR_MULTIPART -> fileBytes;
            };
            operations.add(new Operation(method, template, family, kind, Set.of(query), body, max));
        }
    }
}
