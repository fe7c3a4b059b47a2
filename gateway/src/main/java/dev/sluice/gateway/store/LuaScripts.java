package dev.sluice.gateway.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of {@code src/main/resources/scripts/}, read once. A script made from a
 * {@code Resource} ({@code RedisScript.of(new ClassPathResource(..))}) asks the resource for its
 * last-modified time on every run, under a lock, to see whether its SHA must change: inside the
 * packaged jar that is a file stat and several URLs built per EVALSHA, on the event loop. Made
 * from the text, the SHA is computed once.
 *
 * <p>A line {@code --@include <name>} is replaced by {@code scripts/<name>.lua} (itself expanded),
 * so shared helpers such as {@code window_lib.lua} live in one file and every operation is still
 * one script, one round trip. Each file is put in once per script; a later include of it is left
 * as a comment.
 */
public final class LuaScripts {
    private static final Pattern INCLUDE = Pattern.compile("(?m)^--@include ([A-Za-z0-9_]+)[ \\t]*$");

    private LuaScripts() {}

    /** {@code scripts/<name>.lua} for each name, includes expanded, joined by newlines into one script. */
    public static <T> RedisScript<T> load(Class<T> resultType, String... names) {
        Set<String> included = new HashSet<>();
        StringBuilder text = new StringBuilder();
        for (String name : names) {
            if (!text.isEmpty()) text.append('\n');
            text.append(expand(name, included));
        }
        return RedisScript.of(text.toString(), resultType);
    }

    private static String expand(String name, Set<String> included) {
        if (!included.add(name)) return "-- " + name + ".lua: included above";
        Matcher include = INCLUDE.matcher(read(name));
        StringBuilder out = new StringBuilder();
        while (include.find()) {
            include.appendReplacement(out, Matcher.quoteReplacement(expand(include.group(1), included)));
        }
        include.appendTail(out);
        return out.toString();
    }

    private static String read(String name) {
        try {
            return new ClassPathResource("scripts/" + name + ".lua").getContentAsString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("missing Lua script scripts/" + name + ".lua", e);
        }
    }
}
