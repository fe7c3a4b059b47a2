package dev.sluice.gateway.objects;

import dev.sluice.gateway.objects.ObjectRequest.Action;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules of object ownership, apart from Spring and Redis: which object a path names, which
 * objects a body names, which ids an answer creates or reveals, and what a list page becomes
 * once another tenant's objects are taken out. Pure.
 */
public final class ObjectRules {
    /** Fields of a request body that name an object, by the name of what they name. */
    static final Map<String, String> REFERENCE_FIELDS = Map.of(
            "input_file_id",
            "File",
            "training_file",
            "File",
            "validation_file",
            "File",
            "file_id",
            "File",
            "file_ids",
            "File",
            "previous_response_id",
            "Response",
            "conversation",
            "Conversation",
            "vector_store_ids",
            "VectorStore",
            "vector_store_id",
            "VectorStore",
            "assistant_id",
            "Assistant");
    /**
     * How each of {@link #REFERENCE_FIELDS} ends as a key, the store flag, and an escape: a body
     * with none of them is not parsed again. As keys, not words: a prompt about a "file" is not
     * read twice. A backslash-u escape in a key spells the same key to the parser: any
     * such escape sends the body to the parse, so no spelling of a key slips past the scan.
     */
    private static final byte[][] NEEDLES = bytes("_id\"", "_ids\"", "_file\"", "\"conversation\"", "\"store\"", "\\u");

    /** A body field naming an object: {@code tools[0].vector_store_ids[1]} names vs_abc, a VectorStore. */
    public record Reference(String field, String id, String objectName) {}

    /** The provider's answer is not the shape its API documents: nothing of it may reach the tenant. */
    public static final class UnexpectedAnswer extends RuntimeException {
        public UnexpectedAnswer(String message) {
            super(message, null, false, false);
        }
    }

    private ObjectRules() {}

    /**
     * @param rawPath the path as sent (the surface already refused anything but plain /v1 segments)
     * @return what the request does to which family's objects, or null when it touches none
     */
    public static ObjectRequest classify(String method, String rawPath) {
        if (rawPath == null || !rawPath.startsWith("/v1/")) return null;
        String rest = rawPath.substring(4);
        for (ObjectFamily family : ObjectFamily.values()) {
            String base = family.path();
            if (rest.equals(base)) {
                if ("POST".equals(method)) return new ObjectRequest(family, Action.CREATE, null, "id");
                if ("GET".equals(method)) return new ObjectRequest(family, Action.LIST, null, null);
                return null;
            }
            if (!rest.startsWith(base + "/")) continue;
            String tail = rest.substring(base.length() + 1);
            int slash = tail.indexOf('/');
            String id = slash < 0 ? tail : tail.substring(0, slash);
            if (id.isEmpty()) return null;
            switch (family) {
                case RESPONSES -> {
                    // Operations, not objects: they name theirs in the body.
                    if (id.equals("input_tokens") || id.equals("compact")) return null;
                }
                case THREADS -> {
                    if (id.equals("runs")) {
                        // Creates a thread and its run: the thread becomes the caller's.
                        return slash < 0 && "POST".equals(method)
                                ? new ObjectRequest(family, Action.CREATE, null, "thread_id")
                                : null;
                    }
                }
                default -> {}
            }
            return new ObjectRequest(family, Action.OBJECT, id, null);
        }
        return null;
    }

    /** Whether a body may name an object or set {@code store}: one pass over its bytes, no parse. */
    public static boolean mayNameObjects(byte[] body) {
        for (byte[] needle : NEEDLES) {
            if (indexOf(body, needle) >= 0) return true;
        }
        return false;
    }

    /**
     * Every object the body names, wherever it names it ({@code tools[].vector_store_ids},
     * {@code tool_resources.file_search.vector_store_ids}, a message's {@code attachments[].file_id},
     * a content part's {@code file.file_id}...). {@code metadata} holds the tenant's own strings
     * and is not read.
     */
    public static List<Reference> references(JsonNode body) {
        List<Reference> found = new ArrayList<>();
        collect(body, "", found);
        return found;
    }

    private static void collect(JsonNode node, String at, List<Reference> found) {
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) collect(node.get(i), at + "[" + i + "]", found);
            return;
        }
        if (!node.isObject()) return;
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String name = field.getKey();
            JsonNode value = field.getValue();
            String path = at.isEmpty() ? name : at + "." + name;
            if (name.equals("metadata")) continue;
            String kind = REFERENCE_FIELDS.get(name);
            if (kind != null) {
                if (value.isString()) {
                    found.add(new Reference(path, value.stringValue(), kind));
                    continue;
                }
                if (value.isArray() && (name.endsWith("_ids") || name.equals("file_ids"))) {
                    for (int i = 0; i < value.size(); i++) {
                        if (value.get(i).isString())
                            found.add(new Reference(
                                    path + "[" + i + "]", value.get(i).stringValue(), kind));
                    }
                    continue;
                }
                if (name.equals("conversation")
                        && value.isObject()
                        && value.path("id").isString()) {
                    found.add(new Reference(path + ".id", value.get("id").stringValue(), kind));
                    continue;
                }
            }
            collect(value, path, found);
        }
    }

    /**
     * Whether a create's answer can be read back later, so its id must be claimed: a chat
     * completion only when the request set {@code store: true}, a response unless it set
     * {@code store: false} (OpenAI's defaults), every other object always.
     *
     * @param body the request body, or null when it names no {@code store}
     */
    public static boolean stored(ObjectFamily family, JsonNode body) {
        JsonNode store = body == null ? null : body.get("store");
        return switch (family) {
            case CHAT_COMPLETIONS -> store != null && store.isBoolean() && store.booleanValue();
            case RESPONSES -> store == null || !store.isBoolean() || store.booleanValue();
            default -> true;
        };
    }

    /** The id a create's answer gives its new object. */
    public static String createdId(ObjectRequest request, JsonNode answer) {
        JsonNode id = answer == null ? null : answer.get(request.createdIdAt());
        if (id == null || !id.isString() || id.stringValue().isEmpty()) {
            throw new UnexpectedAnswer("The provider's answer to a create names no " + request.createdIdAt() + ".");
        }
        return id.stringValue();
    }

    /**
     * The object id a stream's event carries, or null: a chat chunk's {@code id}, the
     * {@code response.id} of a Responses event ({@code response.created} comes first).
     */
    public static String streamedId(JsonNode event) {
        if (event == null || !event.isObject()) return null;
        JsonNode response = event.get("response");
        if (response != null && response.isObject() && response.path("id").isString())
            return response.get("id").stringValue();
        JsonNode id = event.get("id");
        return id != null && id.isString() && !id.stringValue().isEmpty() ? id.stringValue() : null;
    }

    /** The ids of a list page's {@code data}. */
    public static List<String> pageIds(JsonNode page) {
        List<String> ids = new ArrayList<>();
        for (JsonNode item : pageData(page)) ids.add(itemId(item));
        return ids;
    }

    /**
     * The page with only the items {@code owned} accepts, in their order; {@code first_id} and
     * {@code last_id} (where the page has them) name the first and last of those left, null when
     * none is. {@code has_more} stays as the provider said: a client paging with {@code after}
     * walks on through pages that may hold none of its objects.
     */
    public static ObjectNode ownPage(JsonNode page, Predicate<String> owned) {
        ArrayNode data = pageData(page);
        ObjectNode copy = ((ObjectNode) page).deepCopy();
        ArrayNode kept = copy.putArray("data");
        for (JsonNode item : data) {
            if (owned.test(itemId(item))) kept.add(item);
        }
        if (copy.has("first_id")) {
            if (kept.isEmpty()) copy.putNull("first_id");
            else copy.put("first_id", itemId(kept.get(0)));
        }
        if (copy.has("last_id")) {
            if (kept.isEmpty()) copy.putNull("last_id");
            else copy.put("last_id", itemId(kept.get(kept.size() - 1)));
        }
        return copy;
    }

    /**
     * Ids the provider made for an object and shows in its answer, which belong to the object's
     * owner: a batch's {@code output_file_id} and {@code error_file_id}, a fine-tuning job's
     * {@code result_files}, a completed upload's {@code file.id}.
     */
    public static List<String> revealedIds(ObjectFamily family, JsonNode object) {
        List<String> ids = new ArrayList<>();
        if (object == null || !object.isObject()) return ids;
        switch (family) {
            case BATCHES -> {
                addString(ids, object.get("output_file_id"));
                addString(ids, object.get("error_file_id"));
            }
            case FINE_TUNING_JOBS -> {
                JsonNode files = object.get("result_files");
                if (files != null && files.isArray()) files.forEach(f -> addString(ids, f));
            }
            case UPLOADS -> {
                JsonNode file = object.get("file");
                if (file != null && file.isObject()) addString(ids, file.get("id"));
            }
            default -> {}
        }
        return ids;
    }

    private static void addString(List<String> ids, JsonNode node) {
        if (node != null && node.isString() && !node.stringValue().isEmpty()) ids.add(node.stringValue());
    }

    private static ArrayNode pageData(JsonNode page) {
        JsonNode data = page == null || !page.isObject() ? null : page.get("data");
        if (data == null || !data.isArray()) throw new UnexpectedAnswer("The provider's list has no data array.");
        return (ArrayNode) data;
    }

    private static String itemId(JsonNode item) {
        JsonNode id = item.isObject() ? item.get("id") : null;
        if (id == null || !id.isString()) throw new UnexpectedAnswer("An item of the provider's list has no id.");
        return id.stringValue();
    }

    private static byte[][] bytes(String... needles) {
        byte[][] out = new byte[needles.length][];
        for (int i = 0; i < needles.length; i++) out[i] = needles[i].getBytes(StandardCharsets.US_ASCII);
        return out;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) continue outer;
            }
            return i;
        }
        return -1;
    }
}
