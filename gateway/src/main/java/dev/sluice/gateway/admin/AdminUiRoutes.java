package dev.sluice.gateway.admin;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.MediaTypeFactory;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * The admin UI at {@code /admin/}: the single-page app built by the {@code admin-ui} module,
 * from its jar's {@code sluice-admin-ui/} folder (not a default static location, so nothing
 * of it appears anywhere else). Its files hold no data and need no login; every datum comes
 * through the authenticated API. Hashed assets are cached for good; index.html is answered
 * for every page path (the app routes in the browser) and never cached, so a new build is
 * picked up on the next load.
 */
@Configuration(proxyBeanMethods = false)
public class AdminUiRoutes {
    private static final Logger log = LoggerFactory.getLogger(AdminUiRoutes.class);
    static final String ROOT = "sluice-admin-ui/";
    /** A file name the build writes: no path separators, no "..". */
    private static final Pattern FILE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,200}");
    /** The app's own files only; connections to this origin only (the API); no framing. */
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

    private static final String NOT_BUILT = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sluice admin</title></head>
            <body style="font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem">
            <h1>Sluice admin</h1><p>This gateway was built without the admin UI (the <code>admin-ui</code> module).
            Build it with <code>./mvnw install -DskipTests</code>. The admin API works without it:
            see <a href="/admin/api/openapi.yaml">/admin/api/openapi.yaml</a>.</p></body></html>
            """;

    @Bean
    RouterFunction<ServerResponse> adminUi() {
        byte[] index = read(ROOT + "index.html");
        if (index == null)
            log.warn("The admin UI is not on the class path ({}index.html): /admin/ shows a notice instead", ROOT);
        return RouterFunctions.route()
                .GET(
                        "/admin",
                        r -> ServerResponse.permanentRedirect(URI.create("/admin/"))
                                .build())
                .route(
                        getOrHead("/admin/assets/{file}"),
                        r -> file(
                                "assets/" + r.pathVariable("file"),
                                r.pathVariable("file"),
                                CacheControl.maxAge(Duration.ofDays(365))
                                        .cachePublic()
                                        .immutable()))
                .route(
                        getOrHead("/admin/**")
                                .and(RequestPredicates.path("/admin/api/**").negate()),
                        r -> page(r, index))
                .build();
    }

    /** HEAD too, for caches and link checkers (the server sends the headers without the body). */
    private static RequestPredicate getOrHead(String pattern) {
        return RequestPredicates.path(pattern)
                .and(RequestPredicates.method(HttpMethod.GET).or(RequestPredicates.method(HttpMethod.HEAD)));
    }

    private static Mono<ServerResponse> page(ServerRequest r, byte[] index) {
        String path = r.path();
        String last = path.substring(path.lastIndexOf('/') + 1);
        if (last.contains(".") && !last.equals("index.html")) return file(last, last, CacheControl.noCache());
        if (index == null) return html(HttpStatus.OK, NOT_BUILT.getBytes(StandardCharsets.UTF_8));
        return html(HttpStatus.OK, index);
    }

    private static Mono<ServerResponse> html(HttpStatus status, byte[] body) {
        return ServerResponse.status(status)
                .contentType(MediaType.TEXT_HTML)
                .cacheControl(CacheControl.noCache())
                .header("Content-Security-Policy", CSP)
                .header("Referrer-Policy", "no-referrer")
                .bodyValue(body);
    }

    private static Mono<ServerResponse> file(String relative, String name, CacheControl cache) {
        Resource res = new ClassPathResource(ROOT + relative);
        if (!FILE.matcher(name).matches() || !res.isReadable()) {
            return ServerResponse.status(HttpStatus.NOT_FOUND)
                    .contentType(MediaType.TEXT_PLAIN)
                    .bodyValue("Not found: /admin/" + relative);
        }
        MediaType type = MediaTypeFactory.getMediaType(res).orElse(MediaType.APPLICATION_OCTET_STREAM);
        return ServerResponse.ok().contentType(type).cacheControl(cache).bodyValue(res);
    }

    private static byte[] read(String path) {
        ClassPathResource res = new ClassPathResource(path);
        if (!res.isReadable()) return null;
        try (InputStream in = res.getInputStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            log.warn("Could not read {}: {}", path, e.toString());
            return null;
        }
    }
}
