package dev.sluice.gateway.admin;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every change made through the admin API: who (the admin's name and address), when, and what
 * changed, as one JSON line on the {@code sluice.audit} logger (route it to its own appender
 * to keep it), and the last {@value #KEPT} entries of this replica for
 * {@code GET /admin/api/audit}. A key's secret never appears: a key is named by its id.
 */
public final class AuditLog {
    public static final String LOGGER = "sluice.audit";
    static final int KEPT = 500;
    private static final Logger log = LoggerFactory.getLogger(LOGGER);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Clock clock;
    private final Deque<Map<String, Object>> recent = new ArrayDeque<>();

    public AuditLog(Clock clock) {
        this.clock = clock;
    }

    /** Records a change the request made; {@code details} say what (values, versions, ids). */
    Mono<Void> record(ServerRequest request, String action, String target, Map<String, Object> details) {
        return AdminRequests.adminName(request)
                .doOnNext(actor -> {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("at", clock.instant().toString());
                    entry.put("actor", actor);
                    entry.put(
                            "address",
                            request.remoteAddress().map(AuditLog::host).orElse("unknown"));
                    entry.put("action", action);
                    entry.put("target", target);
                    entry.put("details", details);
                    log.info(JSON.writeValueAsString(entry));
                    synchronized (recent) {
                        recent.addFirst(entry);
                        if (recent.size() > KEPT) recent.removeLast();
                    }
                })
                .then();
    }

    /** This replica's latest entries, newest first. */
    List<Map<String, Object>> recent(int limit) {
        synchronized (recent) {
            return new ArrayList<>(recent).subList(0, Math.min(limit, recent.size()));
        }
    }

    private static String host(InetSocketAddress a) {
        return a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
    }
}
