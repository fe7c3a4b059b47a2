package dev.sluice.gateway.simulation;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The run's whole event trace, as a digest: every event (its virtual time, its kind and its
 * figures) is folded into a 64-bit hash, so two runs of one seed can be compared event by event
 * at the cost of a few multiplications each. With a file ({@code -Dsluice.sim.trace=path}) the
 * events are also written out as text, one a line, to diff two runs or read one.
 */
final class Trace implements AutoCloseable {
    private long hash = 0xcbf29ce484222325L;
    private long events;
    private final BufferedWriter out;

    Trace(Path file) {
        try {
            this.out = file == null ? null : Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One event: what happened ({@code kind}), when, to whom and its figures. */
    void event(long atMs, String kind, String who, long... figures) {
        events++;
        mix(atMs);
        mix(kind.hashCode());
        mix(who.hashCode());
        for (long f : figures) mix(f);
        if (out != null) {
            StringBuilder line = new StringBuilder()
                    .append(atMs)
                    .append(' ')
                    .append(kind)
                    .append(' ')
                    .append(who);
            for (long f : figures) line.append(' ').append(f);
            try {
                out.write(line.append('\n').toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void mix(long v) {
        hash ^= v;
        hash *= 0x100000001b3L;
        hash ^= hash >>> 29;
    }

    long digest() {
        return hash;
    }

    long events() {
        return events;
    }

    @Override
    public void close() {
        if (out == null) return;
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
