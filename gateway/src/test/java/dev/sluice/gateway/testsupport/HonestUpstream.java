package dev.sluice.gateway.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An upstream that does what it was asked and reports it: each of the {@code n} choices writes
 * {@code max_tokens} (or {@code max_completion_tokens}, {@code max_output_tokens}) tokens, or
 * {@link #UNCAPPED_TOKENS} when the request sets no cap, and the usage says exactly that. Each
 * token of the text is {@code " a"}, one token in every OpenAI encoding. How it reports is chosen
 * by a word in the prompt, so a test can be a provider that does not report as OpenAI does:
 * {@code no-usage} (no usage field or chunk), {@code early-usage} (a stream's usage chunk before
 * the last content), {@code late-usage} (a stream's usage {@link #LATE} after finish_reason),
 * {@code error-200} (an error object with status 200), {@code ignore-cap} (writes
 * {@link #UNCAPPED_TOKENS} whatever the cap), {@code slow-end} (a JSON answer whose end comes
 * {@link #LATE} after its last byte), {@code split-text} (a JSON answer whose text's second half and usage
 * come {@link #LATE} after its first), {@code background} (a Responses job accepted, no usage yet).
 * The prompt counts as {@link #PROMPT_TOKENS}. Every answer has an id of its own.
 */
public final class HonestUpstream implements AutoCloseable {
    public static final long UNCAPPED_TOKENS = 4000;
    public static final long PROMPT_TOKENS = 10;
    public static final Duration LATE = Duration.ofMillis(400);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern MODE = Pattern.compile("mode:([a-z0-9-]+)");
    private static final AtomicLong IDS = new AtomicLong();
    /** Tokens written and billed, prompt included, per account named in the request body. */
    private final ConcurrentHashMap<String, AtomicLong> billed = new ConcurrentHashMap<>();
    /** Each response's input and output: what a call continuing it reads again. */
    private final ConcurrentHashMap<String, Long> contexts = new ConcurrentHashMap<>();

    private final FakeUpstream server;

    private HonestUpstream() {
        this.server = FakeUpstream.start((req, res) -> answer(req.path(), req.body(), res));
    }

    public static HonestUpstream start() {
        return new HonestUpstream();
    }

    public String baseUrl() {
        return server.baseUrl();
    }

    public FakeUpstream server() {
        return server;
    }

    /**
     * Everything this upstream wrote for chat, completions and Responses requests whose body
     * names {@code account:NAME}: it bills
     * the whole answer when it starts writing, whether or not the client stays for it.
     */
    public long billedTo(String account) {
        AtomicLong total = billed.get(account);
        return total == null ? 0 : total.get();
    }

    /** What the provider wrote (and billed) for a request of this shape, prompt included. */
    public static long billed(long n, long capOrZero) {
        return PROMPT_TOKENS + n * (capOrZero > 0 ? capOrZero : UNCAPPED_TOKENS);
    }

    private static final Pattern ACCOUNT = Pattern.compile("account:([a-z0-9-]+)");

    private Publisher<Void> answer(String path, String body, HttpServerResponse res) {
        JsonNode req = JSON.readTree(body.isEmpty() ? "{}" : body);
        Matcher m = MODE.matcher(body);
        Set<String> modes = new HashSet<>();
        while (m.find()) modes.add(m.group(1));
        String mode =
                modes.stream().filter(x -> !x.equals("ignore-cap")).findFirst().orElse("honest");
        long n = req.path("n").asLong(1);
        long cap = req.path("max_completion_tokens")
                .asLong(req.path("max_tokens")
                        .asLong(req.path("max_output_tokens").asLong(0)));
        long each = cap > 0 && !modes.contains("ignore-cap") ? cap : UNCAPPED_TOKENS;
        String id = (path.endsWith("/responses") ? "resp_" : "chatcmpl-") + IDS.incrementAndGet();
        long completion = n * each;
        boolean responses = path.endsWith("/responses");
        // A continuation reads its predecessor's input and output again, as the provider bills it.
        String previous = req.path("previous_response_id").asString(null);
        long prompt = PROMPT_TOKENS + (previous == null ? 0 : contexts.getOrDefault(previous, 0L));
        if (responses) contexts.put(id, prompt + completion);
        Matcher account = ACCOUNT.matcher(body);
        if (account.find() && (responses || path.endsWith("/completions")) && !mode.equals("error-200")) {
            billed.computeIfAbsent(account.group(1), a -> new AtomicLong()).addAndGet(prompt + completion);
        }
        if (path.endsWith("/images/generations")) { // dall-e answers: no usage
            String image = "{\"url\":\"https://images.example/1.png\"}";
            return res.header("content-type", "application/json")
                    .sendString(Mono.just("{\"created\":1,\"data\":["
                            + String.join(",", Collections.nCopies((int) n, image)) + "]}"));
        }
        if (path.endsWith("/audio/speech")) {
            return res.header("content-type", "audio/mpeg").sendByteArray(Mono.just(new byte[4096]));
        }
        if (mode.equals("error-200")) {
            return res.header("content-type", "application/json")
                    .sendString(
                            Mono.just(
                                    "{\"error\":{\"message\":\"Organization org-SECRET has exceeded its quota\",\"type\":\"insufficient_quota\",\"code\":null}}"));
        }
        String usage = responses
                ? "{\"input_tokens\":" + prompt + ",\"output_tokens\":" + completion + ",\"total_tokens\":"
                        + (prompt + completion) + "}"
                : "{\"prompt_tokens\":" + PROMPT_TOKENS + ",\"completion_tokens\":" + completion + ",\"total_tokens\":"
                        + (PROMPT_TOKENS + completion) + "}";
        String text = " a".repeat((int) each);
        if (mode.equals("background")) {
            return res.header("content-type", "application/json")
                    .sendString(
                            Mono.just(
                                    "{\"id\":\"" + id
                                            + "\",\"object\":\"response\",\"status\":\"queued\",\"background\":true,\"output\":[],\"usage\":null}"));
        }
        if (req.path("stream").asBoolean(false)) {
            return res.header("content-type", "text/event-stream")
                    .sendString(stream(id, responses, n, each, usage, mode), StandardCharsets.UTF_8);
        }
        StringBuilder json = new StringBuilder();
        if (responses) {
            json.append("{\"id\":\"")
                    .append(id)
                    .append(
                            "\",\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"")
                    .append(text)
                    .append("\"}]}]");
        } else {
            json.append("{\"id\":\"")
                    .append(id)
                    .append("\",\"object\":\"chat.completion\",\"model\":\"gpt-4o-mini\",\"choices\":[");
            for (int i = 0; i < n; i++) {
                if (i > 0) json.append(',');
                json.append("{\"index\":")
                        .append(i)
                        .append(",\"message\":{\"role\":\"assistant\",\"content\":\"")
                        .append(text)
                        .append("\"},\"finish_reason\":\"length\"}");
            }
            json.append(']');
        }
        if (!mode.equals("no-usage")) json.append(",\"usage\":").append(usage);
        json.append('}');
        if (mode.equals("split-text")) {
            // The text's first half now, the rest (and the usage) LATE after: a client may leave inside the string.
            String all = json.toString();
            int half = all.indexOf(" a") + (all.lastIndexOf(" a") - all.indexOf(" a")) / 2;
            return res.header("content-type", "application/json")
                    .sendString(Flux.just(all.substring(0, half))
                            .concatWith(Mono.delay(LATE).thenMany(Flux.just(all.substring(half)))));
        }
        if (mode.equals("slow-end")) {
            return res.header("content-type", "application/json")
                    .sendString(Flux.just(json.toString())
                            .concatWith(Mono.delay(LATE).then(Mono.empty())));
        }
        return res.header("content-type", "application/json").sendString(Mono.just(json.toString()));
    }

    private static Flux<String> stream(String id, boolean responses, long n, long each, String usage, String mode) {
        List<String> content = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (long t = 0; t < each; t += 50) {
                String piece = " a".repeat((int) Math.min(50, each - t));
                content.add(
                        responses
                                ? "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\""
                                        + piece + "\"}\n\n"
                                : "data: {\"id\":\"" + id
                                        + "\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":" + i
                                        + ",\"delta\":{\"content\":\"" + piece + "\"}}]}\n\n");
            }
        }
        String usageEvent = responses
                ? "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"" + id
                        + "\",\"status\":\"completed\",\"usage\":" + usage + "}}\n\n"
                : "data: {\"id\":\"" + id + "\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":" + usage
                        + "}\n\n";
        String finish = responses
                ? ""
                : "data: {\"id\":\"" + id
                        + "\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n";
        String done = responses ? "" : "data: [DONE]\n\n";
        return switch (mode) {
            case "no-usage" -> Flux.fromIterable(content).concatWith(Flux.just(finish, done));
            case "early-usage" ->
                Flux.just(content.get(0))
                        .concatWith(Flux.just(usageEvent.replace(
                                "\"completion_tokens\":" + n * each, "\"completion_tokens\":" + Math.min(50, each))))
                        .concatWith(Flux.fromIterable(content.subList(1, content.size())))
                        .concatWith(Flux.just(finish, done));
            case "late-usage" ->
                Flux.fromIterable(content)
                        .concatWith(Flux.just(finish))
                        .concatWith(Mono.delay(LATE).thenMany(Flux.just(usageEvent, done)));
            default -> Flux.fromIterable(content).concatWith(Flux.just(finish, usageEvent, done));
        };
    }

    @Override
    public void close() {
        server.close();
    }
}
