package dev.sluice.gateway.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of {@code src/main/resources/scripts/}, read once. A script made from a
 * {@code Resource} ({@code RedisScript.of(new ClassPathResource(..))}) asks the resource for its
 * last-modified time on every run, under a lock, to see whether its SHA must change: inside the
 * packaged jar that is a file stat and several URLs built per EVALSHA, on the event loop. Made
 * from the text, the SHA is computed once.
 */
public final class LuaScripts {
    private LuaScripts() {
    }

    /** {@code scripts/<name>.lua} for each name, joined by newlines into one script (shared helpers first). */
    public static <T> RedisScript<T> load(Class<T> resultType, String... names) {
        StringBuilder text = new StringBuilder();
        for (String name : names) {
            if (!text.isEmpty()) text.append('\n');
            text.append(read(name));
        }
        return RedisScript.of(text.toString(), resultType);
    }

    private static String read(String name) {
        try {
            return new ClassPathResource("scripts/" + name + ".lua").getContentAsString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("missing Lua script scripts/" + name + ".lua", e);
        }
    }
}
