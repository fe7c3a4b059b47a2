package dev.sluice.gateway.packaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;

/**
 * Just enough of a Dockerfile reader for the repository's own Dockerfile: stages, ARG defaults
 * (substituted), WORKDIR, COPY (with --from), RUN, USER, ENV, EXPOSE and an exec-form
 * ENTRYPOINT. Anything else it meets makes it fail, so the test cannot silently skip an
 * instruction it does not understand.
 */
record Dockerfile(Map<String, String> globalArgs, List<Stage> stages) {

    record Copy(String from, String source, String destination) {}

    record Stage(
            String name,
            String image,
            String workdir,
            List<Copy> copies,
            List<String> runs,
            String user,
            Map<String, String> env,
            List<String> exposed,
            List<String> entrypoint) {}

    private static final Pattern VAR = Pattern.compile("\\$\\{(\\w+)}|\\$(\\w+)");
    private static final Pattern ENV_PAIR = Pattern.compile("(\\w+)=(\"(?:[^\"\\\\]|\\\\.)*\"|\\S+)");

    static Dockerfile parse(Path file) throws IOException {
        List<String> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : Files.readAllLines(file)) {
            String line = raw.strip();
            if (current.isEmpty() && (line.isEmpty() || line.startsWith("#"))) continue;
            if (!current.isEmpty() && line.startsWith("#")) continue; // comment inside a continued instruction
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            current.append(line);
            instructions.add(current.toString().strip());
            current.setLength(0);
        }
        if (!current.isEmpty()) throw new IllegalStateException("Dockerfile ends inside a continued line");

        Map<String, String> global = new LinkedHashMap<>();
        List<Stage> stages = new ArrayList<>();
        Builder stage = null;
        for (String instruction : instructions) {
            String[] kv = instruction.split("\\s+", 2);
            String keyword = kv[0].toUpperCase();
            String rest = kv.length > 1 ? kv[1] : "";
            if (keyword.equals("FROM")) {
                if (stage != null) stages.add(stage.build());
                String[] parts = substitute(rest, global).split("\\s+");
                stage = new Builder(
                        parts.length == 3 && parts[1].equalsIgnoreCase("AS") ? parts[2] : null,
                        parts[0],
                        new LinkedHashMap<>(global));
                continue;
            }
            if (stage == null) {
                if (!keyword.equals("ARG"))
                    throw new IllegalStateException("before FROM only ARG is allowed: " + instruction);
                putArg(global, rest);
                continue;
            }
            String text = substitute(rest, stage.args);
            switch (keyword) {
                case "ARG" -> putArg(stage.args, rest);
                case "WORKDIR" -> stage.workdir = text.startsWith("/") ? text : stage.workdir + "/" + text;
                case "COPY" -> {
                    List<String> words = new ArrayList<>(List.of(text.split("\\s+")));
                    String from = null;
                    while (!words.isEmpty() && words.get(0).startsWith("--")) {
                        String flag = words.remove(0);
                        if (flag.startsWith("--from=")) from = flag.substring("--from=".length());
                    }
                    if (words.size() != 2)
                        throw new IllegalStateException("one source and one destination expected: " + instruction);
                    stage.copies.add(new Copy(from, words.get(0), words.get(1)));
                }
                case "RUN" -> stage.runs.add(text);
                case "USER" -> stage.user = text;
                case "ENV" -> {
                    Matcher m = ENV_PAIR.matcher(text);
                    while (m.find()) {
                        String value = m.group(2);
                        if (value.startsWith("\""))
                            value = value.substring(1, value.length() - 1).replace("\\\"", "\"");
                        stage.env.put(m.group(1), value);
                    }
                }
                case "EXPOSE" -> stage.exposed.addAll(List.of(text.split("\\s+")));
                case "ENTRYPOINT" -> {
                    if (!text.startsWith("["))
                        throw new IllegalStateException("ENTRYPOINT must use the exec form: " + instruction);
                    stage.entrypoint = List.of(JsonMapper.builder().build().readValue(text, String[].class));
                }
                default ->
                    throw new IllegalStateException("instruction this check does not understand: " + instruction);
            }
        }
        if (stage != null) stages.add(stage.build());
        return new Dockerfile(global, stages);
    }

    Stage stage(String name) {
        return stages.stream()
                .filter(s -> name.equals(s.name()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no stage named " + name));
    }

    Stage last() {
        return stages.get(stages.size() - 1);
    }

    private static void putArg(Map<String, String> args, String declaration) {
        int eq = declaration.indexOf('=');
        if (eq < 0) args.putIfAbsent(declaration.strip(), "");
        else
            args.put(
                    declaration.substring(0, eq).strip(),
                    declaration.substring(eq + 1).strip());
    }

    private static String substitute(String text, Map<String, String> args) {
        Matcher m = VAR.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            String value = args.get(name);
            if (value == null) throw new IllegalStateException("undeclared ARG " + name + " in: " + text);
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static final class Builder {
        final String name;
        final String image;
        final Map<String, String> args;
        String workdir = "/";
        final List<Copy> copies = new ArrayList<>();
        final List<String> runs = new ArrayList<>();
        String user;
        final Map<String, String> env = new LinkedHashMap<>();
        final List<String> exposed = new ArrayList<>();
        List<String> entrypoint = List.of();

        Builder(String name, String image, Map<String, String> args) {
            this.name = name;
            this.image = image;
            this.args = args;
        }

        Stage build() {
            return new Stage(
                    name,
                    image,
                    workdir,
                    List.copyOf(copies),
                    List.copyOf(runs),
                    user,
                    Map.copyOf(env),
                    List.copyOf(exposed),
                    entrypoint);
        }
    }
}
