package dev.sluice.gateway.acceptance.fuzz;

import dev.sluice.gateway.acceptance.fuzz.FuzzCase.Builder;
import dev.sluice.gateway.acceptance.fuzz.FuzzCase.Expect;
import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Generators of malformed, hostile and (as controls) valid requests, one family per category.
 * Every choice comes from the {@link Random} given, so a seed reproduces a run exactly.
 */
final class FuzzCases {
    static final String[] COUNTED = {"/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/responses"};
    static final String[] CATEGORIES = {"valid", "body", "headers", "paths", "methods", "raw", "stall"};

    private final Random r;
    private final String key;

    FuzzCases(Random random, String key) {
        this.r = random;
        this.key = key;
    }

    static String validBody(String endpoint) {
        return switch (endpoint) {
            case "/v1/completions" -> "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"prompt\":\"hi\"}";
            case "/v1/embeddings" -> "{\"model\":\"text-embedding-3-small\",\"input\":\"hi\"}";
            case "/v1/responses" -> "{\"model\":\"gpt-4o-mini\",\"max_output_tokens\":16,\"input\":\"hi\"}";
            default ->
                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        };
    }

    private <T> T pick(T[] options) {
        return options[r.nextInt(options.length)];
    }

    private String endpoint() {
        return pick(COUNTED);
    }

    private Builder post(String category, String template, String endpoint) {
        return new Builder(category, template).target(endpoint).header("Authorization", "Bearer " + key);
    }

    /** {@code n} cases of one category. */
    List<FuzzCase> generate(String category, int n) {
        List<FuzzCase> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(
                    switch (category) {
                        case "valid" -> valid();
                        case "body" -> body();
                        case "headers" -> headers();
                        case "paths" -> paths();
                        case "methods" -> methods();
                        case "raw" -> raw();
                        case "stall" -> stall(i);
                        default -> throw new IllegalArgumentException(category);
                    });
        }
        return out;
    }

    FuzzCase valid() {
        String e = endpoint();
        return post("valid", "valid " + e, e)
                .json(validBody(e))
                .expect(Expect.OK)
                .build();
    }

    // ---- bodies ---------------------------------------------------------------------------------

    static final String[] FIELDS = {
        "model",
        "max_tokens",
        "messages",
        "stream",
        "temperature",
        "n",
        "user",
        "stream_options",
        "max_completion_tokens",
        "max_output_tokens",
        "input",
        "prompt",
        "tools",
        "response_format",
        "top_p",
        "stop"
    };
    static final String[] VALUES = {
        "\"x\"",
        "1",
        "-1",
        "0",
        "1.5",
        "-0.0",
        "true",
        "null",
        "[]",
        "{}",
        "[1,2]",
        "{\"a\":{}}",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "1e308",
        "\"NaN\"",
        "\"\"",
        "\"16\""
    };
    static final String[] HUGE = {
        "9223372036854775807",
        "9223372036854775808",
        "-1",
        "-9223372036854775808",
        "1e19",
        "9007199254740993",
        "1e308",
        "1e999",
        "4294967296",
        "2147483648",
        "100000000",
        "-0.5",
        "1.0e400"
    };
    static final String[] NOT_JSON = {
        "{",
        "}",
        "{,}",
        "{'model':'gpt-4o-mini'}",
        "{\"model\":}",
        "garbage",
        "\u0000",
        "{\"model\":\"x\"}}",
        "[",
        "{\"model\" \"x\"}",
        "{\"max_tokens\":NaN}",
        "{\"max_tokens\":Infinity}",
        "{\"max_tokens\":-Infinity}",
        "{\"max_tokens\":0x10}",
        "{\"max_tokens\":1_000}",
        "/* c */{}",
        "{\"a\":\"\\x41\"}"
    };
    static final String[] NOT_OBJECT = {"[]", "null", "1", "\"str\"", "true", "[{}]", "-0", "1e999"};

    private String maxTokensField(String endpoint) {
        return endpoint.equals("/v1/responses") ? "max_output_tokens" : "max_tokens";
    }

    FuzzCase body() {
        String e = endpoint();
        String valid = validBody(e);
        int kind = r.nextInt(14);
        switch (kind) {
            case 0: {
                int cut = 1 + r.nextInt(valid.length() - 1);
                return post("body", "truncated JSON", e)
                        .json(valid.substring(0, cut))
                        .expect(Expect.REFUSED)
                        .build();
            }
            case 1:
                return post("body", "not JSON", e)
                        .json(pick(NOT_JSON))
                        .expect(Expect.REFUSED)
                        .build();
            case 2:
                return post("body", "JSON but not an object", e)
                        .json(pick(NOT_OBJECT))
                        .expect(Expect.REFUSED)
                        .build();
            case 3:
                return post("body", "empty body", e)
                        .json("")
                        .expect(Expect.REFUSED)
                        .build();
            case 4:
            case 5:
            case 6: {
                String field = pick(FIELDS);
                String value = pick(VALUES);
                String json = "{\"" + field + "\":" + value + "," + valid.substring(1);
                // Jackson keeps the last of duplicate keys, so put the odd value last where the field is in the body.
                if (valid.contains("\"" + field + "\""))
                    json = valid.substring(0, valid.length() - 1) + ",\"" + field + "\":" + value + "}";
                boolean limitField = switch (e) {
                    case "/v1/chat/completions" ->
                        field.equals("max_tokens") || field.equals("max_completion_tokens") || field.equals("n");
                    case "/v1/completions" -> field.equals("max_tokens") || field.equals("n");
                    case "/v1/responses" -> field.equals("max_output_tokens");
                    default -> false;
                };
                boolean hostile = limitField && (value.startsWith("-") && !value.equals("-0.0") || value.length() > 10);
                return post("body", "wrong type/value for " + field, e)
                        .json(json)
                        .expect(hostile ? Expect.REFUSED : Expect.CLEAN)
                        .build();
            }
            case 7: {
                String f = maxTokensField(e);
                if (e.equals("/v1/embeddings")) e = "/v1/chat/completions";
                String base = validBody(e);
                String json = base.replaceFirst("\"" + f + "\":16", "\"" + f + "\":" + pick(HUGE));
                return post("body", "huge or negative " + f, e)
                        .json(json)
                        .expect(Expect.REFUSED)
                        .build();
            }
            case 8: {
                int depth = pick(new Integer[] {1001, 5000, 20000});
                String nested = "[".repeat(depth) + "]".repeat(depth);
                return post("body", "nesting depth " + depth, "/v1/chat/completions")
                        .json(
                                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":"
                                        + nested + "}]}")
                        .expect(Expect.REFUSED)
                        .build();
            }
            case 9: {
                int size = pick(new Integer[] {65_536, 300_000, 3_000_000});
                return post("body", "string of " + size + " chars", "/v1/chat/completions")
                        .json(
                                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\""
                                        + "a b ".repeat(size / 4) + "\"}]}")
                        .build();
            }
            case 10: {
                byte[][] bad = {
                    {(byte) 0xC3, 0x28},
                    {(byte) 0xFF, (byte) 0xFE},
                    {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                    {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
                    {(byte) 0xC0, (byte) 0xAF},
                    {(byte) 0x80}
                };
                byte[] b = bad[r.nextInt(bad.length)];
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.writeBytes(
                        "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"h"
                                .getBytes(StandardCharsets.UTF_8));
                out.writeBytes(b);
                out.writeBytes("i\"}]}".getBytes(StandardCharsets.UTF_8));
                return post("body", "invalid UTF-8 in a string", "/v1/chat/completions")
                        .header("Content-Type", "application/json")
                        .body(out.toByteArray())
                        .build();
            }
            case 11: {
                String esc = pick(new String[] {"\\ud800", "\\udfff\\ud800", "\\u0000", "\\uFFFF", "\\ud83d"});
                return post("body", "escaped lone surrogate or NUL", "/v1/chat/completions")
                        .json(
                                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\""
                                        + esc + "\"}],\"user\":\"" + esc + "\"}")
                        .build();
            }
            case 12: {
                String[] charsets = {"utf-16", "utf-16le", "utf-32", "iso-8859-1", "ebcdic", "nope"};
                String cs = pick(charsets);
                Charset c;
                try {
                    c = Charset.forName(cs.equals("ebcdic") ? "IBM037" : cs.equals("nope") ? "utf-16" : cs);
                } catch (RuntimeException ex) {
                    c = StandardCharsets.UTF_16;
                }
                return post("body", "body in " + cs, e)
                        .header("Content-Type", "application/json; charset=" + cs)
                        .body(valid.getBytes(c))
                        .build();
            }
            default: {
                String f = maxTokensField(e.equals("/v1/embeddings") ? "/v1/chat/completions" : e);
                String ep = e.equals("/v1/embeddings") ? "/v1/chat/completions" : e;
                String base = validBody(ep);
                boolean hugeLast = r.nextBoolean();
                String dup = hugeLast
                        ? "\"" + f + "\":16,\"" + f + "\":9223372036854775807"
                        : "\"" + f + "\":9223372036854775807,\"" + f + "\":16";
                String json = base.replaceFirst("\"" + f + "\":16", dup);
                // The gateway and the providers' parsers keep the last of duplicate keys: huge last is a request that
                // can never fit (a 400), huge first is a valid request for 16.
                return post("body", "duplicate " + f + " keys, the huge one " + (hugeLast ? "last" : "first"), ep)
                        .json(json)
                        .expect(hugeLast ? Expect.REFUSED : Expect.CLEAN)
                        .build();
            }
        }
    }

    // ---- headers --------------------------------------------------------------------------------

    private Builder chat(String template) {
        return new Builder("headers", template).target("/v1/chat/completions");
    }

    private String garbage(int max) {
        int n = 1 + r.nextInt(max);
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) b.append((char) (0x21 + r.nextInt(0x5e)));
        return b.toString();
    }

    FuzzCase headers() {
        String body = validBody("/v1/chat/completions");
        int kind = r.nextInt(11);
        switch (kind) {
            case 0:
                return chat("no credentials").json(body).expect(Expect.REFUSED).build();
            case 1: {
                String v = pick(new String[] {
                    "",
                    "Bearer",
                    "Bearer ",
                    "Basic dXNlcjpwYXNz",
                    "Bearer sk-" + garbage(40),
                    garbage(200),
                    "Bearer " + "k".repeat(6000),
                    "Token " + key,
                    "Bearer " + key + "x",
                    "Bearer " + key.substring(0, key.length() - 1),
                    "Bearer " + key.toUpperCase()
                });
                return chat("garbage Authorization")
                        .header("Authorization", v)
                        .json(body)
                        .expect(Expect.REFUSED)
                        .build();
            }
            case 2: {
                byte[] v = pick(new byte[][] {
                    {'B', 'e', 'a', 'r', 'e', 'r', ' ', (byte) 0xff, (byte) 0xfe},
                    ("Bearer " + key + "\u0000").getBytes(StandardCharsets.ISO_8859_1),
                    {'B', 'e', 'a', 'r', 'e', 'r', ' ', 0x01, 0x7f}
                });
                byte[] line = concat("Authorization: ".getBytes(StandardCharsets.ISO_8859_1), v);
                return chat("control or non-ASCII bytes in Authorization")
                        .header(line)
                        .json(body)
                        .expect(Expect.REFUSED)
                        .build();
            }
            case 3: {
                boolean bothBad = r.nextBoolean();
                Builder b = chat(
                        bothBad ? "two garbage Authorization headers" : "a valid and a garbage Authorization header");
                if (bothBad)
                    b.header("Authorization", "Bearer " + garbage(30)).header("Authorization", "Bearer " + garbage(30));
                else if (r.nextBoolean())
                    b.header("Authorization", "Bearer " + key).header("Authorization", "Bearer sk-" + garbage(20));
                else b.header("Authorization", "Bearer sk-" + garbage(20)).header("Authorization", "Bearer " + key);
                return b.json(body)
                        .expect(bothBad ? Expect.REFUSED : Expect.CLEAN)
                        .build();
            }
            case 4: {
                int v = r.nextInt(3);
                if (v == 0)
                    return chat("valid x-api-key")
                            .header("x-api-key", key)
                            .json(body)
                            .expect(Expect.OK)
                            .build();
                if (v == 1)
                    return chat("garbage x-api-key")
                            .header("x-api-key", garbage(60))
                            .json(body)
                            .expect(Expect.REFUSED)
                            .build();
                return chat("garbage Authorization, valid x-api-key")
                        .header("Authorization", "Bearer " + garbage(20))
                        .header("x-api-key", key)
                        .json(body)
                        .build();
            }
            case 5: {
                String[] refused = {
                    "text/plain",
                    "application/x-www-form-urlencoded",
                    "multipart/form-data; boundary=x",
                    "application/xml",
                    "text/html",
                    "application/octet-stream"
                };
                String[] clean = {
                    "application/json; charset=utf-8",
                    "APPLICATION/JSON",
                    "application/json;;;",
                    "application/json; charset=nope",
                    "garbage",
                    "/",
                    "application/",
                    "*/*",
                    "application/json\t",
                    "application/json; boundary=\"",
                    "text/json",
                    "application/vnd.api+json"
                };
                boolean bad = r.nextBoolean();
                String ct = bad ? pick(refused) : pick(clean);
                return post("headers", bad ? "non-JSON Content-Type" : "odd Content-Type", "/v1/chat/completions")
                        .header("Content-Type", ct)
                        .body(body.getBytes(StandardCharsets.UTF_8))
                        .expect(bad ? Expect.REFUSED : Expect.CLEAN)
                        .build();
            }
            case 6: {
                boolean none = r.nextBoolean();
                Builder b =
                        post("headers", none ? "no Content-Type" : "two Content-Type headers", "/v1/chat/completions");
                if (!none) b.header("Content-Type", "application/json").header("Content-Type", "text/plain");
                return b.body(body.getBytes(StandardCharsets.UTF_8)).build();
            }
            case 7: {
                String label = pick(new String[] {
                    "X-Sluice-Priority",
                    "X-Sluice-Max-Wait",
                    "X-Sluice-No-Downgrade",
                    "X-Sluice-Tier",
                    "X-Sluice-Degraded",
                    "X-Sluice-Queue-Wait-Ms",
                    "X-Sluice-Tenant",
                    "X-Sluice-<random>"
                });
                String name = label.equals("X-Sluice-<random>")
                        ? "X-Sluice-" + garbage(10).replace(":", "")
                        : label;
                String value = pick(new String[] {
                    "-1",
                    "0",
                    "1",
                    "9223372036854775807",
                    "9223372036854775808",
                    "abc",
                    "1e3",
                    "",
                    " 5",
                    "600001",
                    "interactive",
                    "batch",
                    "critical",
                    "true",
                    "TRUE",
                    "enterprise",
                    garbage(100),
                    "NaN",
                    "0x10"
                });
                return post("headers", "X-Sluice-* garbage: " + label, "/v1/chat/completions")
                        .header(name, value)
                        .json(body)
                        .build();
            }
            case 8: {
                int size = pick(new Integer[] {9_000, 20_000, 70_000, 1_000_000});
                String name = pick(new String[] {"X-Big", "Authorization", "Cookie", "X-Sluice-Priority"});
                String value = name.equals("Authorization") ? "Bearer " + "k".repeat(size) : "v".repeat(size);
                return post("headers", "header over " + (size / 1000) + " KB", "/v1/chat/completions")
                        .header(name, value)
                        .json(body)
                        .expect(size > 64_000 ? Expect.REFUSED_OR_CLOSED : Expect.REFUSED)
                        .build();
            }
            case 9: {
                int count = pick(new Integer[] {100, 500, 3000});
                Builder b = post("headers", count + " headers", "/v1/chat/completions");
                for (int i = 0; i < count; i++) b.header("X-H" + i, "v");
                return b.json(body)
                        .expect(count > 500 ? Expect.REFUSED_OR_CLOSED : Expect.CLEAN)
                        .build();
            }
            default: {
                byte[][] lines = {
                    "X Bad: 1".getBytes(StandardCharsets.ISO_8859_1),
                    ": empty-name".getBytes(StandardCharsets.ISO_8859_1),
                    {'X', '-', 'A', ':', ' ', (byte) 0x80, (byte) 0xff},
                    {'X', '-', 'C', ':', ' ', 0x01, 0x02, 0x1f},
                    "X-Sluice-Priority : batch".getBytes(StandardCharsets.ISO_8859_1),
                    "Host: ".getBytes(StandardCharsets.ISO_8859_1),
                    "X-Nul\u0000: x".getBytes(StandardCharsets.ISO_8859_1),
                    "Expect: 100-continue".getBytes(StandardCharsets.ISO_8859_1),
                    "Expect: nonsense".getBytes(StandardCharsets.ISO_8859_1)
                };
                byte[] line = lines[r.nextInt(lines.length)];
                Builder b = post("headers", "malformed header line", "/v1/chat/completions")
                        .header(line);
                if (r.nextInt(4) == 0) b.noHost();
                return b.json(body).build();
            }
        }
    }

    // ---- paths ----------------------------------------------------------------------------------

    static final String[] OTHER_PATHS = {
        "/v1/models",
        "/v1/models/gpt-4o-mini",
        "/v1/models/%2e%2e",
        "/v1/files",
        "/v1/audio/speech",
        "/v1/audio/transcriptions",
        "/v1/images/generations",
        "/v1/moderations",
        "/v1/batches",
        "/v1/unknown",
        "/v1/",
        "/v1",
        "/v2/chat/completions",
        "/",
        "/favicon.ico",
        "/v1/chat",
        "/v1/chat/completions/extra",
        "/V1/CHAT/COMPLETIONS",
        "//v1/chat/completions",
        "/v1//chat/completions",
        "/v1/chat/completions/",
        "/v1/chat%2Fcompletions",
        "/v1/chat/completions;x=1",
        "/v1/chat/completions?",
        "/v1/chat/completions?a=%zz",
        "/v1/chat/completions#frag",
        "/v1/chat/completions%00",
        "/v1/chat/completions%20",
        "/v1/chat/completions/.",
        "/v1/%",
        "/v1/%zz",
        "/v1/%c0%af",
        "/v1/%ff",
        "/v1/./chat/completions",
        "/v1/chat/./completions",
        "http://example.com/v1/chat/completions",
        "/v1/chat/completions?stream=true&x=" + "y".repeat(100)
    };
    static final String[] TRAVERSAL = {
        "/v1/../admin/api/tiers",
        "/v1/%2e%2e/admin/api/tiers",
        "/v1/%2E%2E/admin/api/tiers",
        "/v1/..%2fadmin/api/tiers",
        "/v1/..%2Fadmin%2Fapi%2Ftiers",
        "/v1/./../admin/api/tenants",
        "/v1/chat/completions/../../admin/api/tiers",
        "/v1/..;/admin/api/tiers",
        "/v1/%252e%252e/admin/api/tiers",
        "/v1/..\\admin\\api\\tiers",
        "/v1/../../../../etc/passwd",
        "/v1/../actuator/env",
        "/v1/../lab/provider/reset",
        "/v1/%2e%2e%2f%2e%2e%2fadmin/api/tiers",
        "/v1/../admin/api/tiers?x=/v1/chat/completions"
    };
    /** The admin API itself, asked with a tenant key: refused, in the admin API's own error shape. */
    static final String[] ADMIN = {
        "/admin/api/tiers", "/admin/api/tenants", "http://127.0.0.1:1/admin/api/tiers", "/admin/api/overview"
    };

    FuzzCase paths() {
        String body = validBody("/v1/chat/completions");
        int kind = r.nextInt(5);
        String method = r.nextBoolean() ? "GET" : "POST";
        switch (kind) {
            case 0:
            case 1: {
                String p = pick(OTHER_PATHS);
                Builder b = post("paths", "other path " + p, p).method(method);
                if (method.equals("POST")) b.json(body);
                return b.build();
            }
            case 2:
                if (r.nextInt(4) == 0) {
                    String p = pick(ADMIN);
                    Builder b =
                            post("paths", "admin API with a tenant key " + p, p).method(method);
                    if (method.equals("POST")) b.json(body);
                    return b.expect(Expect.REFUSED).build();
                }
            // fall through
            case 3: {
                String p = pick(TRAVERSAL);
                Builder b = post("paths", "traversal " + p, p).method(method);
                if (method.equals("POST")) b.json(body);
                return b.expect(Expect.REFUSED).build();
            }
            default: {
                int v = r.nextInt(4);
                if (v == 0) {
                    int n = pick(new Integer[] {2_000, 9_000, 70_000});
                    return post("paths", "path of " + (n / 1000) + " KB", "/v1/" + "a".repeat(n))
                            .json(body)
                            .expect(n > 4000 ? Expect.REFUSED : Expect.CLEAN)
                            .build();
                }
                if (v == 1) {
                    byte[] target = concat(
                            "/v1/chat/".getBytes(StandardCharsets.ISO_8859_1),
                            new byte[] {(byte) (0x80 + r.nextInt(0x80)), 'x'});
                    return post("paths", "raw non-ASCII byte in the path", "/")
                            .target(target)
                            .json(body)
                            .build();
                }
                if (v == 2) {
                    return post("paths", "space in the path", "/v1/chat completions")
                            .json(body)
                            .expect(Expect.REFUSED)
                            .build();
                }
                return new Builder("paths", "asterisk target")
                        .method(pick(new String[] {"OPTIONS", "POST", "GET"}))
                        .target("*")
                        .header("Authorization", "Bearer " + key)
                        .expect(Expect.REFUSED)
                        .build();
            }
        }
    }

    // ---- methods --------------------------------------------------------------------------------

    static final String[] METHODS = {
        "GET",
        "DELETE",
        "PUT",
        "PATCH",
        "OPTIONS",
        "HEAD",
        "TRACE",
        "FOO",
        "PROPFIND",
        "post",
        "P0ST",
        "CONNECT",
        "M".repeat(1000),
        "GET\u0000",
        "BREW"
    };

    FuzzCase methods() {
        String e = endpoint();
        String m = pick(METHODS);
        // GET /v1/chat/completions lists stored completions: an operation, not a wrong method.
        if (m.equals("GET") && e.equals("/v1/chat/completions")) e = "/v1/embeddings";
        Builder b = new Builder(
                        "methods",
                        (m.length() > 20 ? "1000-char method" : m.replace("\u0000", "\\0")) + " on a counted endpoint")
                .method(m)
                .target(e);
        if (r.nextInt(4) != 0) b.header("Authorization", "Bearer " + key);
        if (r.nextBoolean() && !m.equals("GET") && !m.equals("HEAD")) b.json(validBody(e));
        else if (m.equals("GET") && r.nextBoolean()) b.json(validBody(e)); // a GET with a body
        return b.expect(Expect.REFUSED).build();
    }

    // ---- raw malformations ----------------------------------------------------------------------

    FuzzCase raw() {
        String body = validBody("/v1/chat/completions");
        String auth = "Authorization: Bearer " + key + "\r\n";
        String head = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + auth
                + "Content-Type: application/json\r\nConnection: close\r\n";
        int kind = r.nextInt(6);
        switch (kind) {
            case 0: {
                String[] lines = {
                    "GARBAGE\r\n\r\n",
                    "POST\r\n\r\n",
                    "POST /v1/chat/completions\r\n\r\n",
                    "POST /v1/chat/completions HTTP/9.9\r\nHost: x\r\n\r\n",
                    "POST /v1/chat/completions HTTP/1.1 extra\r\nHost: x\r\n\r\n",
                    "\r\n\r\n",
                    "POST  /v1/chat/completions  HTTP/1.1\r\nHost: x\r\n\r\n",
                    "POST\t/v1/chat/completions\tHTTP/1.1\r\nHost: x\r\n\r\n",
                    "HTTP/1.1 200 OK\r\n\r\n",
                    "POST /v1/chat/completions HTTP/1.1\r\nAuthorization Bearer x\r\nHost: x\r\n\r\n",
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n",
                    "POST /v1/chat/completions HTTP/1.1\r\n\r\n",
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}",
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}",
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n0\r\n\r\n",
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n{}"
                };
                String l = pick(lines);
                if (l.equals("\r\n\r\n")) {
                    // Leading blank lines are skipped (RFC 9112, 2.2): the server waits for a request, so the client
                    // ends it.
                    return new Builder("raw", "blank lines only, then EOF")
                            .raw(l.getBytes(StandardCharsets.ISO_8859_1))
                            .expect(Expect.REFUSED_OR_CLOSED)
                            .build();
                }
                return new Builder(
                                "raw",
                                "bad request line or framing: "
                                        + l.lines().findFirst().orElse("").replaceAll("[^ -~]", "?")
                                        + (l.contains("Content-Length: ") || l.contains("Transfer-Encoding")
                                                ? " ["
                                                        + l.replaceAll(
                                                                        "(?s).*\r\n(Content-Length|Transfer-Encoding)",
                                                                        "$1")
                                                                .lines()
                                                                .findFirst()
                                                                .orElse("")
                                                        + "]"
                                                : ""))
                        .raw(l.getBytes(StandardCharsets.ISO_8859_1))
                        .expect(Expect.REFUSED)
                        .build();
            }
            case 1: {
                byte[] junk = new byte[1 + r.nextInt(512)];
                r.nextBytes(junk);
                boolean tls = r.nextBoolean();
                if (tls)
                    junk = new byte[] {0x16, 0x03, 0x01, 0x00, (byte) 0xa5, 0x01, 0x00, 0x00, (byte) 0xa1, 0x03, 0x03};
                return new Builder("raw", tls ? "a TLS ClientHello" : "random bytes")
                        .raw(junk)
                        .expect(Expect.REFUSED_OR_CLOSED)
                        .build();
            }
            case 2: {
                String[] chunks = {
                    "zz\r\nabc\r\n0\r\n\r\n",
                    "-1\r\nabc\r\n0\r\n\r\n",
                    "ffffffffffffffff\r\nabc\r\n0\r\n\r\n",
                    "5;\u0000\r\nhello\r\n0\r\n\r\n",
                    "3\r\nabcdef\r\n0\r\n\r\n",
                    "0x5\r\nhello\r\n0\r\n\r\n",
                    "\r\n\r\n"
                };
                String c = pick(chunks);
                return new Builder(
                                "raw",
                                "broken chunked body: "
                                        + c.lines().findFirst().orElse("").replaceAll("[^ -~]", "?"))
                        .raw((head + "Transfer-Encoding: chunked\r\n\r\n" + c).getBytes(StandardCharsets.ISO_8859_1))
                        .expect(Expect.REFUSED)
                        .build();
            }
            case 3: {
                boolean ends = r.nextBoolean();
                String c = Integer.toHexString(body.length() + 50) + "\r\n" + body + (ends ? "" : "\r\n");
                return new Builder("raw", ends ? "chunk shorter than its size, then EOF" : "no last chunk, then EOF")
                        .raw((head + "Transfer-Encoding: chunked\r\n\r\n" + c).getBytes(StandardCharsets.ISO_8859_1))
                        .expect(Expect.REFUSED_OR_CLOSED)
                        .build();
            }
            case 4: {
                int v = r.nextInt(4);
                if (v == 0) {
                    return new Builder("raw", "Content-Length larger than the body, then EOF")
                            .raw((head + "Content-Length: " + (body.length() + 1 + r.nextInt(1000)) + "\r\n\r\n" + body)
                                    .getBytes(StandardCharsets.UTF_8))
                            .expect(Expect.REFUSED_OR_CLOSED)
                            .build();
                }
                if (v == 1) {
                    int len = 1 + r.nextInt(body.length() - 1);
                    return new Builder("raw", "Content-Length shorter than the body")
                            .raw((head + "Content-Length: " + len + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8))
                            .expect(Expect.REFUSED)
                            .build();
                }
                if (v == 2) {
                    return new Builder("raw", "Content-Length and chunked together (smuggling)")
                            .raw((head + "Content-Length: " + body.length() + "\r\nTransfer-Encoding: chunked\r\n\r\n"
                                            + body)
                                    .getBytes(StandardCharsets.UTF_8))
                            .expect(Expect.REFUSED_OR_CLOSED)
                            .build();
                }
                return new Builder("raw", "a valid chunked body")
                        .raw((head + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(body.length()) + "\r\n"
                                        + body + "\r\n0\r\n\r\n")
                                .getBytes(StandardCharsets.UTF_8))
                        .expect(Expect.OK)
                        .build();
            }
            default: {
                boolean http10 = r.nextBoolean();
                String req = http10
                        ? "POST /v1/chat/completions HTTP/1.0\r\n" + auth
                                + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                                + body
                        : "POST /v1/chat/completions HTTP/1.1\nHost: x\n" + auth.replace("\r\n", "\n")
                                + "Content-Type: application/json\nConnection: close\nContent-Length: " + body.length()
                                + "\n\n" + body;
                return new Builder("raw", http10 ? "HTTP/1.0 without Host" : "bare LF line endings")
                        .raw(req.getBytes(StandardCharsets.UTF_8))
                        .build();
            }
        }
    }

    // ---- stalls ---------------------------------------------------------------------------------

    FuzzCase stall(int i) {
        String body = validBody("/v1/chat/completions");
        String head = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key
                + "\r\nContent-Type: application/json\r\n";
        String[][] stalls = {
            {"half a request line", "POST /v1/chat/compl"},
            {"headers never finished", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthoriz"},
            {
                "body shorter than Content-Length, connection kept open",
                head + "Content-Length: " + (body.length() + 100) + "\r\n\r\n" + body
            },
            {
                "chunked body never terminated, connection kept open",
                head + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
            },
            {"nothing sent", ""}
        };
        String[] s = stalls[i % stalls.length];
        return new Builder("stall", s[0])
                .raw(s[1].getBytes(StandardCharsets.UTF_8))
                .expect(Expect.STALL)
                .build();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static <T> List<T> times(int n, Supplier<T> s) {
        List<T> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(s.get());
        return out;
    }
}
