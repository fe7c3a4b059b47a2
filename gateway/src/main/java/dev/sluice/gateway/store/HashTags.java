package dev.sluice.gateway.store;

/**
 * Redis Cluster hash tags. A cluster hashes only what lies between a key's first '{' and the
 * next '}', and the whole key when that is empty: an id holding a brace ("}x", "a}b{") would
 * cut or empty the tag, send the keys of one script to different slots, and every call would
 * fail with CROSSSLOT. Braces (and the escape character) are percent-encoded, so any id gives
 * a tag of its own, and ids without them (all valid tenant ids, usual provider names) are unchanged.
 */
public final class HashTags {
    private HashTags() {}

    /** {@code {id}}, with '%', '{' and '}' in the id percent-encoded. */
    public static String tag(String id) {
        if (id.indexOf('{') < 0 && id.indexOf('}') < 0 && id.indexOf('%') < 0 && !id.isEmpty()) return "{" + id + "}";
        StringBuilder out = new StringBuilder(id.length() + 8).append('{');
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            switch (c) {
                case '%' -> out.append("%25");
                case '{' -> out.append("%7B");
                case '}' -> out.append("%7D");
                default -> out.append(c);
            }
        }
        // An empty tag would hash the whole key: give the empty id a tag of its own.
        if (id.isEmpty()) out.append("%");
        return out.append('}').toString();
    }
}
