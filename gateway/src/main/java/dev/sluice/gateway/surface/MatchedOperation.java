package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.RequestAttribute;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operation a request was matched to, with the path's id segments by the template's names
 * ({@code file_id → file-abc}): left on the exchange by the surface, before authentication, for
 * the stages that need to know what the request does (the endpoint access check, object
 * ownership).
 */
public record MatchedOperation(Operation operation, Map<String, String> ids) {
    public static final RequestAttribute<MatchedOperation> ATTRIBUTE = new RequestAttribute<>("sluice.operation");

    public MatchedOperation {
        ids = Collections.unmodifiableMap(new LinkedHashMap<>(ids));
    }

    /** The id segment named {@code name} in the template ({@code file_id}), or null. */
    public String id(String name) {
        return ids.get(name);
    }

    /** The id segments in path order. */
    public List<String> idValues() {
        return List.copyOf(ids.values());
    }
}
