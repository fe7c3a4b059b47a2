package dev.sluice.gateway.config;

import static dev.sluice.gateway.config.FullTiersDocument.AT;
import static dev.sluice.gateway.config.FullTiersDocument.load;
import static dev.sluice.gateway.config.FullTiersDocument.mapping;
import static dev.sluice.gateway.config.FullTiersDocument.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * tiers.schema.json against the parser: every field it names is one the parser reads, required
 * where it says so, and its bounds are the parser's. The parser takes its known fields from the
 * schema, so a field it reads but the schema lacks is refused as unknown in full.yaml.
 */
class TiersSchemaTest {

    private static final JsonNode SCHEMA = TiersSchema.document();

    /** One field of one kind of mapping, at its place in full.yaml. */
    record Field(String kind, List<Object> at, String name) {
        JsonNode schema() {
            JsonNode declared = kindSchema().path("properties").path(name);
            // A field whose value is a kind of its own ({"$ref": "#/$defs/ladder"}) has that kind's type.
            return declared.has("$ref")
                    ? SCHEMA.at(declared.get("$ref").asString().substring(1))
                    : declared;
        }

        boolean required() {
            for (JsonNode r : kindSchema().path("required")) if (r.asString().equals(name)) return true;
            return false;
        }

        String type() {
            return schema().path("type").asString();
        }

        /** The path the parser names it by: {@code providers[0].models.gpt-4o.max-in-flight}. */
        String path() {
            StringBuilder s = new StringBuilder();
            for (Object p : at) s.append(p instanceof Integer i ? "[" + i + "]" : (s.isEmpty() ? "" : ".") + p);
            return s.isEmpty() ? name : s + "." + name;
        }

        private JsonNode kindSchema() {
            return kind.equals("(root)") ? SCHEMA : SCHEMA.path("$defs").path(kind);
        }

        @Override
        public String toString() {
            return path();
        }
    }

    static Stream<Field> fields() {
        Stream<Field> root = TiersSchema.root().stream().map(f -> new Field("(root)", List.of(), f));
        return Stream.concat(
                root,
                AT.entrySet().stream()
                        .sorted(Map.Entry.comparingByKey())
                        .flatMap(k -> TiersSchema.fields(k.getKey()).stream()
                                .map(f -> new Field(k.getKey(), k.getValue(), f))));
    }

    @Test
    void everyKindTheSchemaDeclaresHasAPlaceInTheFullDocument() {
        assertThat(SCHEMA.path("$defs").propertyNames()).containsExactlyInAnyOrderElementsOf(AT.keySet());
    }

    @Test
    void theFullDocumentSetsEveryFieldTheSchemaNamesAndParses() {
        Map<String, Object> doc = load();
        assertThat(fields())
                .allSatisfy(f -> assertThat(mapping(doc, f.at())).as(f.path()).containsKey(f.name()));
        assertThat(problems(doc)).isEmpty();
    }

    /** The parser reads every field the schema names: a value of the wrong shape there is refused at that field. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fields")
    void aWrongValueInAnyFieldIsRefusedAtThatField(Field f) {
        Map<String, Object> doc = load();
        Object wrong = f.type().equals("object") || f.type().equals("array") ? 7 : Map.of("x", 1);
        mapping(doc, f.at()).put(f.name(), wrong);
        assertThat(problems(doc)).extracting(ConfigProblem::field).contains(f.path());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fields")
    void aFieldMayBeLeftOutUnlessTheSchemaRequiresIt(Field f) {
        Map<String, Object> doc = load();
        mapping(doc, f.at()).remove(f.name());
        if (f.required())
            assertThat(problems(doc)).extracting(ConfigProblem::field).contains(f.path());
        else assertThat(problems(doc)).isEmpty();
    }

    /** Each number's bound in the schema, at the bound and just past it; exclusive bounds and multiples alike. */
    static Stream<Arguments> bounds() {
        return fields().filter(f -> f.type().equals("integer") || f.type().equals("number"))
                .flatMap(f -> {
                    JsonNode s = f.schema();
                    boolean integer = f.type().equals("integer");
                    double step = integer ? 1 : 0.001;
                    List<Arguments> out = new ArrayList<>();
                    if (s.has("minimum")) {
                        out.add(arguments(f, value(s.get("minimum").asDouble(), integer), true));
                        out.add(arguments(f, value(s.get("minimum").asDouble() - step, integer), false));
                    }
                    if (s.has("maximum")) {
                        out.add(arguments(f, value(s.get("maximum").asDouble(), integer), true));
                        out.add(arguments(f, value(s.get("maximum").asDouble() + step, integer), false));
                    }
                    double multiple = s.path("multipleOf").asDouble(step);
                    if (s.has("exclusiveMinimum")) {
                        double above = s.get("exclusiveMinimum").asDouble();
                        out.add(arguments(f, value(above, integer), false));
                        out.add(arguments(f, value(above + multiple, integer), true));
                        if (s.has("multipleOf")) out.add(arguments(f, value(above + multiple + 1, integer), false));
                    }
                    return out.stream();
                });
    }

    @ParameterizedTest(name = "{0} = {1}: accepted {2}")
    @MethodSource("bounds")
    void theSchemasBoundsAreTheParsers(Field f, Number value, boolean accepted) {
        Map<String, Object> doc = load();
        mapping(doc, f.at()).put(f.name(), value);
        List<String> refused = problems(doc).stream().map(ConfigProblem::field).toList();
        if (accepted) assertThat(refused).doesNotContain(f.path());
        else assertThat(refused).contains(f.path());
    }

    @Test
    void theFamiliesATierMayListAreTheSchemas() {
        List<String> listable = Arrays.stream(Family.values())
                .filter(x -> Family.listable(x.wireName()).isPresent())
                .map(Family::wireName)
                .toList();
        List<String> declared = new ArrayList<>();
        SCHEMA.at("/$defs/tier/properties/endpoints/items/enum").forEach(n -> declared.add(n.asString()));
        assertThat(declared).containsExactlyElementsOf(listable);
    }

    @Test
    void tierAndTenantNamesFollowTheParsersPattern() {
        String name = "^" + TiersYamlParser.NAME.pattern() + "$";
        assertThat(SCHEMA.at("/properties/tiers/propertyNames/pattern").asString())
                .isEqualTo(name);
        assertThat(SCHEMA.at("/$defs/demo-tenant/properties/id/pattern").asString())
                .isEqualTo(name);
    }

    private static Number value(double v, boolean integer) {
        return integer ? (Number) (long) v : (Number) v;
    }

    private static List<ConfigProblem> problems(Map<String, Object> doc) {
        try {
            TiersYamlParser.parse("full.yaml", yaml(doc));
            return List.of();
        } catch (ConfigException e) {
            return e.problems();
        }
    }
}
