package dev.sluice.gateway.config;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;

/** A tier's {@code endpoints:}, read for {@link TiersYamlParser} with every problem named at its field and line. */
final class EndpointsYaml {
    private EndpointsYaml() {}

    /**
     * {@code endpoints: [chat, files]}: the families the tier opens, each whole (see
     * {@link EndpointAccess}). Names as OpenAI's paths write them; models is always open.
     */
    static EndpointAccess read(YamlNodes y, String path, Node node) {
        List<Node> items = y.sequence(path, node);
        Set<Family> families = new LinkedHashSet<>();
        for (int i = 0; i < items.size(); i++) {
            Node n = items.get(i);
            String at = path + "[" + i + "]";
            String name = n instanceof ScalarNode sc ? sc.getValue() : "";
            if (name.equals(Family.MODELS.wireName()) || name.equals(Family.SLUICE.wireName())) {
                y.problem(at, n, name + " is always open (the gateway answers it): do not list it");
                continue;
            }
            Optional<Family> family = Family.listable(name);
            if (family.isEmpty()) {
                y.problem(
                        at,
                        n,
                        "unknown endpoint family '" + name + "' (known: "
                                + String.join(
                                        ", ",
                                        Arrays.stream(Family.values())
                                                .filter(f -> !f.answeredByGateway())
                                                .map(Family::wireName)
                                                .toList())
                                + ")");
            } else if (!families.add(family.get())) {
                y.problem(at, n, "names '" + name + "' twice");
            }
        }
        return EndpointAccess.listed(families);
    }
}
