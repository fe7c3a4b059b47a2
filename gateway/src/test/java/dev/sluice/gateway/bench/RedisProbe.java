package dev.sluice.gateway.bench;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A second, synchronous connection for what the benchmark reads about Redis itself
 * ({@code INFO}, {@code CONFIG RESETSTAT}, {@code MEMORY USAGE}) and for removing its keys.
 * Its own commands are left out of the per-admission counts.
 */
final class RedisProbe implements AutoCloseable {
    /** Commands this probe sends (or the stores' warm-up): never counted as the quota's. */
    private static final Set<String> OWN = Set.of(
            "info",
            "config|resetstat",
            "ping",
            "memory|usage",
            "object|encoding",
            "hlen",
            "pttl",
            "scan",
            "unlink",
            "dbsize",
            "hello",
            "client|setinfo",
            "client|setname",
            "select");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    final RedisCommands<String, String> sync;

    RedisProbe(String url) {
        client = RedisClient.create(url);
        connection = client.connect();
        sync = connection.sync();
    }

    /** One command's line of INFO commandstats. */
    record CommandStat(long calls, long usec, double usecPerCall) {}

    void resetStats() {
        sync.configResetstat();
    }

    /** INFO commandstats, by command name ({@code evalsha}, {@code hincrby}, ...), probe commands left out. */
    Map<String, CommandStat> commandStats() {
        Map<String, CommandStat> out = new TreeMap<>();
        for (String line : sync.info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) continue;
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (OWN.contains(name)) continue;
            Map<String, String> f = fields(line.substring(line.indexOf(':') + 1));
            out.put(
                    name,
                    new CommandStat(
                            Long.parseLong(f.get("calls")),
                            Long.parseLong(f.get("usec")),
                            Double.parseDouble(f.get("usec_per_call"))));
        }
        return out;
    }

    long usedMemory() {
        return Long.parseLong(infoField("memory", "used_memory"));
    }

    String infoField(String section, String name) {
        for (String line : sync.info(section).split("\r?\n")) {
            if (line.startsWith(name + ":"))
                return line.substring(name.length() + 1).trim();
        }
        throw new IllegalStateException("INFO " + section + " has no " + name);
    }

    /** Removes every key matching {@code pattern}; returns how many. */
    long deleteMatching(String pattern) {
        long n = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page =
                    sync.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
            if (!page.getKeys().isEmpty()) n += sync.unlink(page.getKeys().toArray(String[]::new));
            cursor = page;
        } while (!cursor.isFinished());
        return n;
    }

    private static Map<String, String> fields(String csv) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String kv : csv.split(",")) {
            int eq = kv.indexOf('=');
            if (eq > 0) out.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return out;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
