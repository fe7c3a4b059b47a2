package dev.sluice.gateway.objects;

import static dev.sluice.gateway.objects.ObjectJson.JSON;

import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.objects.ObjectRequest.Action;
import dev.sluice.gateway.support.Bodies;
import dev.sluice.gateway.usage.Usage;
import dev.sluice.gateway.usage.UsageExtractor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The provider's answer on its way to a tenant: a create's id claimed for the tenant before the
 * answer goes out (a stream's, from its first event that has one, the rest not held), a list
 * cut to the tenant's own objects, and the ids the provider made for an owned object (a batch's
 * output file) claimed for its owner. An answer that cannot be read so (not JSON, no id, the
 * store failing) is replaced by an error: never another tenant's object, never an unrecorded id.
 * Error answers pass as they are.
 */
final class OwnershipResponse extends ServerHttpResponseDecorator {
    private static final Logger log = LoggerFactory.getLogger(OwnershipResponse.class);
    /** The largest JSON answer read whole (a list page of 10,000 objects is a few MB). */
    static final int MAX_ANSWER_BYTES = 16 * 1024 * 1024;

    private final ObjectRequest target;
    private final ObjectRecord claim;
    private final ObjectOwnership store;
    private final Scheduler loop;
    private final Supplier<Optional<Usage>> streamUsage;

    /**
     * @param claim       the record a create's id gets (the caller as owner, a batch file's estimate)
     * @param loop        the request's event loop: a list page is cut and written there, not on Lettuce's reply thread
     * @param streamUsage the usage a stream reported, once it has passed (the settle stage reads it)
     */
    OwnershipResponse(
            ServerHttpResponse delegate,
            ObjectRequest target,
            ObjectRecord claim,
            ObjectOwnership store,
            Scheduler loop,
            Supplier<Optional<Usage>> streamUsage) {
        super(delegate);
        this.target = target;
        this.claim = claim;
        this.store = store;
        this.loop = loop;
        this.streamUsage = streamUsage;
    }

    /** A response is continued by its id: what the continuation reads again is its input and output. */
    private boolean holdsContext() {
        return target.family() == ObjectFamily.RESPONSES;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
        if (!succeeded()) return super.writeWith(body);
        if (isStream()) {
            return target.action() == Action.CREATE
                    ? super.writeWith(claimingFirstId(Flux.from(body)))
                    : super.writeWith(body);
        }
        return Bodies.read(body, MAX_ANSWER_BYTES).flatMap(this::answered).onErrorResume(this::refuse);
    }

    /** Streams arrive here (Spring Cloud Gateway flushes each chunk of an event stream). */
    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
        if (!succeeded()) return super.writeAndFlushWith(body);
        Flux<DataBuffer> flat = Flux.from(body).concatMap(Flux::from);
        if (isStream() && target.action() == Action.CREATE)
            return super.writeAndFlushWith(claimingFirstId(flat).map(Flux::just));
        if (isStream()) return super.writeAndFlushWith(body);
        return writeWith(flat);
    }

    private boolean succeeded() {
        return getStatusCode() == null || getStatusCode().is2xxSuccessful();
    }

    private boolean isStream() {
        MediaType type = getHeaders().getContentType();
        return type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type);
    }

    private Mono<Void> answered(byte[] bytes) {
        MediaType type = getHeaders().getContentType();
        String encoding = getHeaders().getFirst(HttpHeaders.CONTENT_ENCODING);
        boolean readable = type != null
                && (MediaType.APPLICATION_JSON.isCompatibleWith(type)
                        || type.getSubtype().endsWith("+json"))
                && (encoding == null || encoding.equalsIgnoreCase("identity"));
        if (!readable) {
            if (target.action() == Action.OBJECT)
                return pass(bytes); // an object's content (a file's bytes) names nothing
            return Mono.error(new ObjectRules.UnexpectedAnswer("The provider's answer is not plain JSON."));
        }
        JsonNode answer;
        try {
            answer = JSON.readTree(bytes);
        } catch (JacksonException e) {
            return Mono.error(new ObjectRules.UnexpectedAnswer("The provider's answer is not valid JSON."));
        }
        return switch (target.action()) {
            case CREATE -> {
                String id = ObjectRules.createdId(target, answer);
                // Read from the tree this stage parsed already, not from the bytes again.
                ObjectRecord record = holdsContext()
                        ? claim.withContext(UsageExtractor.fromUsageNode(answer.get("usage"))
                                .map(Usage::totalTokens)
                                .orElse(0L))
                        : claim;
                yield claimed(id, record)
                        .then(claimRevealed(ObjectRules.revealedIds(target.family(), answer)))
                        .then(pass(bytes));
            }
            case OBJECT ->
                claimRevealed(ObjectRules.revealedIds(target.family(), answer)).then(pass(bytes));
            case LIST ->
                store.owners(ObjectRules.pageIds(answer)).publishOn(loop).flatMap(owners -> {
                    JsonNode own = ObjectRules.ownPage(answer, id -> owns(owners.get(id)));
                    List<String> revealed = new ArrayList<>();
                    own.get("data").forEach(item -> revealed.addAll(ObjectRules.revealedIds(target.family(), item)));
                    return claimRevealed(revealed).then(pass(JSON.writeValueAsBytes(own)));
                });
        };
    }

    private boolean owns(ObjectRecord record) {
        return record != null && record.owner().equals(claim.owner());
    }

    /**
     * The id is the caller's now, or the answer is refused: an id recorded for someone else is not
     * handed out. A generated answer (a response, a stored chat completion) whose id cannot be
     * recorded because the store is out passes all the same: its text is what the tenant paid for,
     * and its id, recorded for nobody, reads as a 404 to everyone, its maker included.
     */
    private Mono<Void> claimed(String id, ObjectRecord record) {
        Mono<Void> claimed = store.claim(id, record)
                .flatMap(held -> held.owner().equals(record.owner())
                        ? Mono.<Void>empty()
                        : Mono.error(new ObjectRules.UnexpectedAnswer(
                                "The provider answered with an id already recorded for another tenant.")));
        if (!generated()) return claimed;
        return claimed.onErrorResume(e -> !(e instanceof ObjectRules.UnexpectedAnswer), e -> {
            log.warn(
                    "Could not record who owns {} ({}): the answer passes, and the object is nobody's",
                    id,
                    e.toString());
            return Mono.empty();
        });
    }

    private boolean generated() {
        return target.family() == ObjectFamily.RESPONSES || target.family() == ObjectFamily.CHAT_COMPLETIONS;
    }

    /** Ids the provider made for an owned object: claimed if nobody has them (one already owned stays its owner's). */
    private Mono<Void> claimRevealed(List<String> ids) {
        return Flux.fromIterable(ids)
                .flatMap(id -> store.claim(id, ObjectRecord.ownedBy(claim.owner())))
                .then();
    }

    private Mono<Void> pass(byte[] bytes) {
        getHeaders().setContentLength(bytes.length);
        return super.writeWith(Mono.just(bufferFactory().wrap(bytes)));
    }

    private Flux<DataBuffer> claimingFirstId(Flux<DataBuffer> body) {
        StreamIdScanner scanner = new StreamIdScanner();
        return body.concatMap(buffer -> {
                    if (scanner.found()) return Mono.just(buffer);
                    byte[] bytes = new byte[buffer.readableByteCount()];
                    buffer.read(bytes);
                    DataBufferUtils.release(buffer);
                    String id = scanner.feed(bytes);
                    if (id == null) return Mono.empty();
                    return claimed(id, claim)
                            .then(Mono.fromSupplier(() -> bufferFactory().wrap(scanner.release())));
                })
                .concatWith(Mono.defer(() -> {
                    byte[] rest = scanner.found() ? new byte[0] : scanner.release(); // no id anywhere: nothing to claim
                    return rest.length == 0
                            ? Mono.empty()
                            : Mono.just(bufferFactory().wrap(rest));
                }))
                .doOnComplete(() -> rememberContext(scanner.id()))
                .onErrorResume(e -> Mono.just(bufferFactory().wrap(streamError(e))));
    }

    /**
     * A streamed response's context is known at its end, after its id was claimed: recorded then,
     * in the background (the stream's end does not wait for it; a continuation before it lands is
     * estimated without it, and charged its usage all the same).
     */
    private void rememberContext(String id) {
        if (id == null || !holdsContext()) return;
        streamUsage
                .get()
                .ifPresent(used -> store.update(id, claim.withContext(used.totalTokens()))
                        .onErrorResume(e -> Mono.empty())
                        .subscribe());
    }

    /** A stream cannot change its status once it began: the refusal is its one event. */
    private static byte[] streamError(Throwable e) {
        OwnershipRefusal r = refusalOf(e);
        return ("data: " + OpenAiErrors.body(r.type, r.code, r.getMessage()) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private Mono<Void> refuse(Throwable e) {
        OwnershipRefusal r = refusalOf(e);
        getHeaders().remove(HttpHeaders.CONTENT_LENGTH);
        getHeaders().remove(HttpHeaders.CONTENT_ENCODING);
        return OpenAiErrors.write(getDelegate(), r.status, r.type, r.code, r.getMessage());
    }

    private static OwnershipRefusal refusalOf(Throwable e) {
        if (e instanceof ObjectRules.UnexpectedAnswer u) {
            return new OwnershipRefusal(HttpStatus.BAD_GATEWAY, "server_error", "upstream_error", u.getMessage(), null);
        }
        if (e instanceof DataBufferLimitException) {
            return new OwnershipRefusal(
                    HttpStatus.BAD_GATEWAY,
                    "server_error",
                    "upstream_error",
                    "The provider's answer is larger than the gateway reads to check its objects' owners.",
                    null);
        }
        return OwnershipRefusal.unavailable();
    }
}
