package dev.sluice.gateway.packaging;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.yaml.snakeyaml.Yaml;

/** Renders and lints helm/sluice through helm-java (Helm's own library; no helm CLI, no cluster). */
final class HelmCharts {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path CHART = ROOT.resolve("helm/sluice");
    static final Path PRODUCTION_VALUES = CHART.resolve("values-production.yaml");

    private HelmCharts() {}

    /** The chart's manifests for these values files and --set pairs, one map per object. */
    static Manifests template(List<Path> valuesFiles, Map<String, Object> sets) {
        TemplateCommand command = new Helm(CHART).template().withName("sluice").withNamespace("llm");
        for (Path f : valuesFiles) command = command.withValuesFile(f);
        for (Map.Entry<String, Object> s : sets.entrySet()) command = command.set(s.getKey(), s.getValue());
        return Manifests.parse(command.call());
    }

    static Manifests template(Path valuesFile) {
        return template(List.of(valuesFile), Map.of());
    }

    static Manifests templateDefaults() {
        return template(List.of(), Map.of());
    }

    /**
     * {@code helm lint --strict} with these values. helm-java's lint takes no values file, so the
     * chart is copied and its values.yaml replaced by the defaults merged with the overlay, the
     * way Helm coalesces values (maps merge key by key; anything else replaces).
     */
    @SuppressWarnings("unchecked")
    static LintResult lint(Path workDir, Map<String, Object> overlay) throws IOException {
        Path copy = workDir.resolve("sluice");
        copyTree(CHART, copy);
        Yaml yaml = new Yaml();
        Map<String, Object> defaults = yaml.load(Files.readString(CHART.resolve("values.yaml")));
        Files.writeString(copy.resolve("values.yaml"), yaml.dump(merge(defaults, overlay)));
        return new Helm(copy).lint().strict().call();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> overlay) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        overlay.forEach((k, v) -> {
            Object b = out.get(k);
            out.put(
                    k,
                    b instanceof Map && v instanceof Map ? merge((Map<String, Object>) b, (Map<String, Object>) v) : v);
        });
        return out;
    }

    static Map<String, Object> loadYaml(Path file) {
        try {
            return new Yaml().load(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> tree = Files.walk(from)) {
            for (Path p : (Iterable<Path>) tree::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Rendered objects, by kind and name. */
    record Manifests(List<Map<String, Object>> objects) {
        static Manifests parse(String rendered) {
            List<Map<String, Object>> docs = new ArrayList<>();
            for (Object doc : new Yaml().loadAll(rendered)) {
                if (doc instanceof Map<?, ?> m) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> map = (Map<String, Object>) m;
                    docs.add(map);
                }
            }
            return new Manifests(docs);
        }

        List<Map<String, Object>> ofKind(String kind) {
            return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
        }

        /** The one object of this kind whose component label is {@code component} (or the only one, if null). */
        Map<String, Object> one(String kind, String component) {
            List<Map<String, Object>> found = ofKind(kind).stream()
                    .filter(o -> component == null
                            || component.equals(
                                    Node.of(o).at("metadata", "labels").string("app.kubernetes.io/component")))
                    .toList();
            if (found.size() != 1)
                throw new AssertionError("expected one " + kind + " (" + component + "), found " + found.size());
            return found.get(0);
        }

        Map<String, Object> one(String kind) {
            return one(kind, null);
        }

        boolean has(String kind) {
            return !ofKind(kind).isEmpty();
        }
    }

    /** A little path walker over parsed YAML, failing with the path when something is missing. */
    record Node(Object value, String path) {
        static Node of(Object value) {
            return new Node(value, "");
        }

        Node at(Object... keys) {
            Object v = value;
            StringBuilder p = new StringBuilder(path);
            for (Object k : keys) {
                p.append('.').append(k);
                if (k instanceof Integer i) {
                    if (!(v instanceof List<?> l) || i >= l.size()) throw new AssertionError("no " + p);
                    v = l.get(i);
                } else {
                    if (!(v instanceof Map<?, ?> m) || !m.containsKey(k)) throw new AssertionError("no " + p);
                    v = m.get(k);
                }
            }
            return new Node(v, p.toString());
        }

        boolean has(String key) {
            return value instanceof Map<?, ?> m && m.containsKey(key);
        }

        String string(String key) {
            Object v = value instanceof Map<?, ?> m ? m.get(key) : null;
            return v == null ? null : v.toString();
        }

        List<Node> list() {
            if (!(value instanceof List<?> l)) throw new AssertionError(path + " is not a list");
            List<Node> out = new ArrayList<>();
            for (int i = 0; i < l.size(); i++) out.add(new Node(l.get(i), path + "[" + i + "]"));
            return out;
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> map() {
            if (!(value instanceof Map<?, ?>)) throw new AssertionError(path + " is not a map");
            return (Map<String, Object>) value;
        }
    }
}
