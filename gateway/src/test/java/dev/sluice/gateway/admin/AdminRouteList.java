package dev.sluice.gateway.admin;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpMethod;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;

/**
 * The routes a router function serves, as "METHOD /path" relative to {@code /admin/api}, read by
 * walking the router (Spring's visitors), so a route added to {@link AdminRoutes} shows up here
 * without anyone keeping a list. Routes matched by a lambda (the JSON 404 catch-all) have no
 * method and path to read and are left out.
 */
final class AdminRouteList implements RouterFunctions.Visitor {
    private static final String BASE = "/admin/api";
    private final Deque<String> prefixes = new ArrayDeque<>();
    private final List<String> routes = new ArrayList<>();

    static List<String> of(RouterFunction<?> router) {
        AdminRouteList list = new AdminRouteList();
        router.accept(list);
        return list.routes;
    }

    @Override
    public void startNested(RequestPredicate predicate) {
        Parts p = Parts.of(predicate);
        prefixes.push((prefixes.isEmpty() ? "" : prefixes.peek()) + (p.path == null ? "" : p.path));
    }

    @Override
    public void endNested(RequestPredicate predicate) {
        prefixes.pop();
    }

    @Override
    public void route(RequestPredicate predicate, HandlerFunction<?> handlerFunction) {
        Parts p = Parts.of(predicate);
        if (p.path == null || p.methods.isEmpty()) return;
        String full = (prefixes.isEmpty() ? "" : prefixes.peek()) + p.path;
        if (!full.startsWith(BASE + "/")) return;
        for (HttpMethod m : p.methods) routes.add(m.name() + " " + full.substring(BASE.length()));
    }

    @Override
    public void resources(Function<ServerRequest, Mono<Resource>> lookupFunction) {}

    @Override
    public void attributes(Map<String, Object> attributes) {}

    @Override
    public void unknown(RouterFunction<?> routerFunction) {}

    /** The method and path a predicate tests, where it says them. */
    private static final class Parts implements RequestPredicates.Visitor {
        String path;
        final List<HttpMethod> methods = new ArrayList<>();

        static Parts of(RequestPredicate predicate) {
            Parts p = new Parts();
            predicate.accept(p);
            return p;
        }

        @Override
        public void method(Set<HttpMethod> ms) {
            methods.addAll(ms);
        }

        @Override
        public void path(String pattern) {
            path = pattern;
        }

        @Override
        public void pathExtension(String extension) {}

        @Override
        public void header(String name, String value) {}

        @Override
        public void queryParam(String name, String value) {}

        @Override
        public void version(String version) {}

        @Override
        public void startAnd() {}

        @Override
        public void and() {}

        @Override
        public void endAnd() {}

        @Override
        public void startOr() {}

        @Override
        public void or() {}

        @Override
        public void endOr() {}

        @Override
        public void startNegate() {}

        @Override
        public void endNegate() {}

        @Override
        public void unknown(RequestPredicate predicate) {}
    }
}
