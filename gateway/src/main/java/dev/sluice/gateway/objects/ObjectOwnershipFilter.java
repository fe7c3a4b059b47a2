package dev.sluice.gateway.objects;

import static dev.sluice.gateway.objects.ObjectJson.JSON;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.RequestBodyTooLarge;
import dev.sluice.gateway.api.RequestLoop;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.estimate.BufferedBodyRequest;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.InvalidRequestException;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.objects.ObjectRequest.Action;
import dev.sluice.gateway.objects.ObjectRules.Reference;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.support.Bodies;
import dev.sluice.gateway.support.Causes;
import dev.sluice.gateway.surface.BodyType;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.usage.UsageRecordingResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The ownership stage. Every tenant shares the provider account, so without it any tenant could
 * list, read and delete any other's files, batches, stored responses... Here a request on an
 * object ({@code /v1/files/{id}...}) goes on only for the object's owner; a body may name only
 * the caller's objects ({@code input_file_id}, {@code previous_response_id}, {@code tools[].vector_store_ids}...);
 * a create's id is recorded as the caller's before its answer is released; a list shows the
 * caller's objects only. Other tenants' objects and objects nobody recorded are answered 404,
 * as OpenAI answers an unknown id, and nothing reaches the provider.
 *
 * <p>A batch input file uploaded here ({@code purpose=batch}) is estimated line by line and its
 * estimate kept with its owner; a batch made from it is charged that estimate, so the quota stage
 * after this one charges the batch's whole cost, not one free request. Runs after ESTIMATE (the
 * body is read) and before QUOTA (an unowned reference costs nothing).
 */
public final class ObjectOwnershipFilter implements GlobalFilter, Ordered {
    /** Counted endpoints whose bodies name no object: not read again. */
    private static final Set<Endpoint> NAME_NOTHING =
            Set.of(Endpoint.COMPLETIONS, Endpoint.EMBEDDINGS, Endpoint.MODERATIONS, Endpoint.IMAGES, Endpoint.SPEECH);
    /** Families whose objects show ids the provider made for them (output files, result files). */
    private static final Set<ObjectFamily> REVEALING =
            Set.of(ObjectFamily.BATCHES, ObjectFamily.FINE_TUNING_JOBS, ObjectFamily.UPLOADS);

    private final ObjectOwnership store;
    private final BatchFileEstimator batchFiles;
    private final int maxBodyBytes;
    private final int maxBatchFileBytes;

    /**
     * @param maxBodyBytes      the bound the estimate stage reads JSON bodies with (the same setting)
     * @param maxBatchFileBytes the bound a batch input file is buffered and estimated within
     */
    public ObjectOwnershipFilter(
            ObjectOwnership store, BatchFileEstimator batchFiles, int maxBodyBytes, int maxBatchFileBytes) {
        this.store = store;
        this.batchFiles = batchFiles;
        this.maxBodyBytes = maxBodyBytes;
        this.maxBatchFileBytes = maxBatchFileBytes;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Tenant tenant = SluiceAttributes.tenant(exchange);
        if (tenant == null) return chain.filter(exchange);
        ServerHttpRequest request = exchange.getRequest();
        String method = request.getMethod().name();
        String path = request.getURI().getRawPath();
        ObjectRequest target = ObjectRules.classify(method, path);
        boolean upload = target != null && target.family() == ObjectFamily.FILES && target.action() == Action.CREATE;
        boolean namesObjects = "POST".equals(method)
                && !upload
                && !NAME_NOTHING.contains(Endpoint.fromPath(path))
                && BodyType.isJson(request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE));
        if (target == null && !namesObjects) return chain.filter(exchange);

        Mono<ServerWebExchange> checked = ownsPathObject(exchange, target, tenant)
                .then(
                        upload
                                ? upload(exchange, target, tenant)
                                : namesObjects
                                        ? withOwnReferences(exchange, target, tenant)
                                        : Mono.fromSupplier(
                                                () -> watched(exchange, target, ObjectRecord.ownedBy(tenant.id()))));
        return checked.<Object>map(e -> e)
                // A body past the surface's limit is the surface's to answer (413), as for any stage.
                .onErrorResume(
                        e -> !Causes.any(e, t -> t instanceof RequestBodyTooLarge),
                        e -> Mono.just(OwnershipRefusal.of(e)))
                .flatMap(
                        o -> o instanceof OwnershipRefusal r ? r.write(exchange) : chain.filter((ServerWebExchange) o));
    }

    /** The path's object is the caller's, or a 404. */
    private Mono<Void> ownsPathObject(ServerWebExchange exchange, ObjectRequest target, Tenant tenant) {
        if (target == null || target.action() != Action.OBJECT) return Mono.empty();
        return store.owner(target.id(), SluiceAttributes.decisionBudget(exchange))
                .publishOn(
                        RequestLoop.of(exchange)) // off Lettuce's reply thread: the rest of the request is not its work
                .filter(r -> r.owner().equals(tenant.id()))
                .switchIfEmpty(
                        Mono.error(() -> OwnershipRefusal.noSuch(target.family().objectName(), target.id(), "id")))
                .then();
    }

    /** A JSON POST: every object its body names is the caller's; a batch takes its input file's estimate. */
    private Mono<ServerWebExchange> withOwnReferences(ServerWebExchange exchange, ObjectRequest target, Tenant tenant) {
        return body(exchange).flatMap(read -> {
            JsonNode tree = parsedIfNaming(read.body());
            List<Reference> refs = tree == null ? List.of() : ObjectRules.references(tree);
            boolean batch =
                    target != null && target.family() == ObjectFamily.BATCHES && target.action() == Action.CREATE;
            Mono<ServerWebExchange> next = Mono.fromSupplier(() -> {
                boolean unstoredCreate = target != null
                        && target.action() == Action.CREATE
                        && !ObjectRules.stored(target.family(), tree);
                return unstoredCreate
                        ? read.exchange()
                        : watched(read.exchange(), target, ObjectRecord.ownedBy(tenant.id()));
            });
            if (refs.isEmpty() && !batch) return next;
            DecisionBudget budget = SluiceAttributes.decisionBudget(exchange);
            return store.owners(refs.stream().map(Reference::id).toList(), budget)
                    .publishOn(RequestLoop.of(exchange))
                    .flatMap(owners -> {
                        for (Reference ref : refs) {
                            ObjectRecord r = owners.get(ref.id());
                            if (r == null || !r.owner().equals(tenant.id())) {
                                return Mono.error(OwnershipRefusal.noSuch(ref.objectName(), ref.id(), ref.field()));
                            }
                        }
                        if (batch) chargeBatch(read.exchange(), refs, owners);
                        withContinuedContext(read.exchange(), refs, owners);
                        return next;
                    });
        });
    }

    /**
     * A batch is charged what its input file's lines may cost (recorded at upload) in place of the
     * estimate stage's placeholder. A file with no estimate (uploaded for another purpose) is refused:
     * the batch's cost could not be known, and so not be charged.
     */
    private static void chargeBatch(
            ServerWebExchange exchange, List<Reference> refs, Map<String, ObjectRecord> owners) {
        Reference input = refs.stream()
                .filter(r -> r.field().equals("input_file_id"))
                .findFirst()
                .orElseThrow(() ->
                        new InvalidRequestException("Missing required parameter: 'input_file_id'.", "input_file_id"));
        BatchFileEstimate file = owners.get(input.id()).estimate();
        if (file == null) {
            throw new InvalidRequestException(
                    "The file " + input.id() + " was not uploaded through this gateway with "
                            + "purpose=batch, so what its requests may cost is not known: upload it again with purpose=batch.",
                    "input_file_id");
        }
        RequestEstimate.ATTRIBUTE.set(
                exchange,
                RequestEstimate.ATTRIBUTE
                        .get(exchange)
                        .withCost(file.model(), file.promptTokens(), file.outputTokens()));
    }

    /**
     * A response that continues another ({@code previous_response_id}) reads that one's input and
     * output again as its own input, which its body does not show: the estimate counts it, so the
     * tenant's windows and the provider's budget are charged what the provider will count.
     */
    private static void withContinuedContext(
            ServerWebExchange exchange, List<Reference> refs, Map<String, ObjectRecord> owners) {
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        if (estimate == null || estimate.endpoint() != Endpoint.RESPONSES) return;
        long context = refs.stream()
                .filter(r -> r.field().equals("previous_response_id"))
                .mapToLong(r -> owners.get(r.id()).contextTokens())
                .sum();
        if (context <= 0) return;
        long prompt = estimate.promptTokens() + context;
        RequestEstimate.ATTRIBUTE.set(
                exchange,
                estimate.withCost(estimate.model(), prompt < 0 ? Long.MAX_VALUE : prompt, estimate.maxOutputTokens()));
    }

    private record Read(ServerWebExchange exchange, byte[] body) {}

    /** The body the estimate stage read, or read here within the same bound and handed on the same way. */
    private Mono<Read> body(ServerWebExchange exchange) {
        byte[] already = SluiceAttributes.REQUEST_BODY.get(exchange);
        if (already != null) return Mono.just(new Read(exchange, already));
        return readBody(exchange.getRequest(), maxBodyBytes).map(bytes -> new Read(rewrapped(exchange, bytes), bytes));
    }

    private static Mono<byte[]> readBody(ServerHttpRequest request, int limit) {
        return Bodies.read(request.getBody(), limit);
    }

    private static ServerWebExchange rewrapped(ServerWebExchange exchange, byte[] body) {
        SluiceAttributes.REQUEST_BODY.set(exchange, body);
        return exchange.mutate()
                .request(new BufferedBodyRequest(
                        exchange.getRequest(), exchange, exchange.getResponse().bufferFactory()))
                .build();
    }

    /** The body as a tree when it may name an object; null when it cannot (no parse), or is empty. */
    private static JsonNode parsedIfNaming(byte[] body) {
        if (body.length == 0 || !ObjectRules.mayNameObjects(body)) return null;
        try {
            return JSON.readTree(body);
        } catch (JacksonException e) {
            throw new InvalidRequestException(
                    "We could not parse the JSON body of your request. "
                            + "The API expects a JSON object in the body; what was sent was not valid JSON.",
                    null);
        }
    }

    /**
     * POST /v1/files: a {@code purpose=batch} file is buffered (bounded), estimated off the event
     * loop, sent with the output caps written in, and recorded with its estimate; any other file
     * passes as sent (a file larger than the bound is not buffered at all).
     */
    private Mono<ServerWebExchange> upload(ServerWebExchange exchange, ObjectRequest target, Tenant tenant) {
        ServerHttpRequest request = exchange.getRequest();
        long length = request.getHeaders().getContentLength();
        if (length > maxBatchFileBytes) return Mono.just(watched(exchange, target, ObjectRecord.ownedBy(tenant.id())));
        Tier tier = SluiceAttributes.tier(exchange);
        MediaType type = request.getHeaders().getContentType();
        return readBody(request, maxBatchFileBytes)
                .flatMap(bytes -> MultipartForm.parse(type, bytes)
                        .onErrorMap(
                                e -> !(e instanceof OwnershipRefusal),
                                e -> new InvalidRequestException(
                                        "The body of POST /v1/files must be multipart/form-data with 'purpose' and 'file' parts.",
                                        null))
                        .publishOn(Schedulers.boundedElastic())
                        .map(form -> {
                            MultipartForm.Field purpose = form.field("purpose");
                            if (purpose == null || !purpose.text().strip().equals("batch")) {
                                return watched(rewrapped(exchange, bytes), target, ObjectRecord.ownedBy(tenant.id()));
                            }
                            MultipartForm.Field file = form.field("file");
                            if (file == null)
                                throw new InvalidRequestException("Missing required parameter: 'file'.", "file");
                            BatchFileEstimator.Estimated estimated =
                                    batchFiles.estimate(file.content(), tier.defaultMaxTokens());
                            ServerWebExchange sent = rewrapped(exchange, form.with("file", estimated.file()));
                            return watched(sent, target, new ObjectRecord(tenant.id(), estimated.estimate()));
                        })
                        .publishOn(RequestLoop.of(exchange)));
    }

    /**
     * The exchange with its answer watched, where the answer creates, lists or reveals objects;
     * asked for without compression, so the gateway can read it.
     */
    private ServerWebExchange watched(ServerWebExchange exchange, ObjectRequest target, ObjectRecord claim) {
        if (target == null) return exchange;
        boolean watch = target.action() != Action.OBJECT || REVEALING.contains(target.family());
        if (!watch) return exchange;
        return exchange.mutate()
                .response(new OwnershipResponse(
                        exchange.getResponse(),
                        target,
                        claim,
                        store,
                        RequestLoop.of(exchange),
                        () -> Optional.ofNullable(UsageRecordingResponse.ATTRIBUTE.get(exchange))
                                .flatMap(UsageRecordingResponse::usage)))
                .build();
    }

    @Override
    public int getOrder() {
        return FilterOrder.OWNERSHIP;
    }
}
