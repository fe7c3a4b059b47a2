package dev.sluice.gateway.admin;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import dev.sluice.gateway.abuse.ReviewAction;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.TiersYamlParser;
import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The admin API's own checks of a string field, in the order given: the first rule a value
 * breaks is its problem, in that rule's words. Null (not given) passes the rules but
 * REVIEW_ACTION ({@code @NotNull} says whether a field must be given); blank is
 * {@link String#isBlank}, and names are checked trimmed, as they are kept. One constraint for
 * them all, each rule a case, rather than an annotation type each.
 */
@Target({FIELD, METHOD, PARAMETER})
@Retention(RUNTIME)
@Constraint(validatedBy = Check.Rules.class)
@interface Check {
    Rule[] value();

    /** Unused: each rule words its own problem. */
    String message() default "";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    enum Rule {
        /** Not blank. */
        NON_EMPTY_STRING,
        /** Shaped as tier names are; blank passes. */
        TENANT_ID,
        /** A tier of the configuration in force; blank passes. */
        KNOWN_TIER,
        /** A review action's wire name; required, and the value named back as sent when it is none. */
        REVIEW_ACTION,
        /** An IANA time zone id (a spend budget's); blank passes. */
        TIME_ZONE
    }

    /** Made by the validator factory, with the configuration bean. */
    final class Rules implements ConstraintValidator<Check, String> {
        private static final String ACTIONS =
                Arrays.stream(ReviewAction.values()).map(ReviewAction::wire).collect(Collectors.joining(", "));

        private final ConfigRegistry config;
        private List<Rule> rules;

        Rules(ConfigRegistry config) {
            this.config = config;
        }

        @Override
        public void initialize(Check check) {
            rules = List.of(check.value());
        }

        @Override
        public boolean isValid(String value, ConstraintValidatorContext context) {
            for (Rule rule : rules) {
                String problem = problem(rule, value);
                if (problem != null) return refuse(context, problem);
            }
            return true;
        }

        private String problem(Rule rule, String value) {
            if (value == null) return rule == Rule.REVIEW_ACTION ? "is required (" + ACTIONS + ")" : null;
            return switch (rule) {
                case NON_EMPTY_STRING -> value.isBlank() ? "must be a non-empty string" : null;
                case TENANT_ID ->
                    value.isBlank()
                                    || TiersYamlParser.NAME
                                            .matcher(value.trim())
                                            .matches()
                            ? null
                            : "must be 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit";
                case KNOWN_TIER -> {
                    Set<String> known = config.current().tiers().keySet();
                    yield value.isBlank() || known.contains(value.trim())
                            ? null
                            : "unknown tier '" + value.trim() + "' (known: " + String.join(", ", new TreeSet<>(known))
                                    + ")";
                }
                case TIME_ZONE -> zoneProblem(value);
                case REVIEW_ACTION ->
                    ReviewAction.of(value.trim()) != null
                            ? null
                            : "must be one of " + ACTIONS + ", got '" + value + "'";
            };
        }

        private static String zoneProblem(String value) {
            if (value.isBlank()) return null;
            try {
                ZoneId.of(value.trim());
                return null;
            } catch (DateTimeException e) {
                return "time-zone: unknown time zone '" + value.trim()
                        + "' (an IANA zone id such as UTC or Europe/Paris)";
            }
        }

        /**
         * Reports {@code problem} word for word. The validator reads a message as a template, and
         * its parameters too ({@code ${...}} would be evaluated): a value a client sent is escaped.
         */
        private static boolean refuse(ConstraintValidatorContext context, String problem) {
            context.disableDefaultConstraintViolation();
            context.buildConstraintViolationWithTemplate(problem.replace("\\", "\\\\")
                            .replace("{", "\\{")
                            .replace("}", "\\}")
                            .replace("$", "\\$"))
                    .addConstraintViolation();
            return false;
        }
    }
}
