package dev.sluice.lab.scenario;

import dev.sluice.gateway.admin.AdminError;
import dev.sluice.gateway.admin.AdminRequests;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * Lab runs (docs/lab.md): start one in the background, read it while it runs and once it is done.
 * One at a time; kept in memory on the replica that ran it.
 */
final class LabRunsHandler {
    private static final Set<String> FIELDS = Set.of("cases", "ramp");
    private final LabRuns runs;

    LabRunsHandler(LabRuns runs) {
        this.runs = runs;
    }

    Mono<ServerResponse> start(ServerRequest req) {
        return AdminRequests.optionalJsonObject(req)
                .flatMap(
                        json -> { // an empty body: every case and the ramp
                            for (String field : json.keySet()) {
                                if (!FIELDS.contains(field))
                                    throw AdminError.invalid(field, "is not a field of a lab run (cases, ramp)");
                            }
                            Set<CaseId> cases = cases(json.get("cases"));
                            Boolean ramp = ramp(json.get("ramp"));
                            LabRuns.Run run;
                            try {
                                run = runs.start(cases, ramp == null || ramp);
                            } catch (LabRuns.BusyException e) {
                                throw new AdminError(HttpStatus.CONFLICT, "lab_busy", e.getMessage());
                            }
                            Map<String, Object> out = new LinkedHashMap<>();
                            out.put("id", run.id());
                            out.put("status", run.status().wire());
                            return ServerResponse.status(HttpStatus.ACCEPTED)
                                    .contentType(MediaType.APPLICATION_JSON)
                                    .header("Location", "/admin/api/lab/runs/" + run.id())
                                    .bodyValue(out);
                        });
    }

    Mono<ServerResponse> get(ServerRequest req) {
        String id = req.pathVariable("id");
        return view(runs.find(id).orElseThrow(() -> AdminError.notFound("Lab run '" + id + "'")));
    }

    Mono<ServerResponse> latest(ServerRequest req) {
        return view(runs.latest()
                .orElseThrow(() -> AdminError.notFound("A lab run (none has been started on this replica)")));
    }

    private static Mono<ServerResponse> view(LabRuns.Run r) {
        Map<String, Object> progress = new LinkedHashMap<>();
        progress.put("step", r.progress().step());
        progress.put("done", r.progress().done());
        progress.put("total", r.progress().total());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", r.id());
        out.put("status", r.status().wire());
        out.put("startedAt", r.startedAt().toString());
        out.put("finishedAt", r.finishedAt() == null ? null : r.finishedAt().toString());
        out.put("progress", progress);
        out.put("error", r.error());
        out.put("report", r.report());
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(out);
    }

    private static Boolean ramp(Object value) {
        if (value == null || value instanceof Boolean) return (Boolean) value;
        throw AdminError.invalid("ramp", "must be true or false");
    }

    private static Set<CaseId> cases(Object value) {
        if (value == null) return EnumSet.allOf(CaseId.class);
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            throw AdminError.invalid("cases", "must be a non-empty list of case names (" + CaseId.names() + ")");
        }
        Set<CaseId> out = EnumSet.noneOf(CaseId.class);
        for (Object o : list) {
            if (!(o instanceof String name)) throw AdminError.invalid("cases", "must be a list of strings, got " + o);
            try {
                out.add(CaseId.of(name));
            } catch (IllegalArgumentException e) {
                throw AdminError.invalid("cases", e.getMessage());
            }
        }
        return out;
    }
}
