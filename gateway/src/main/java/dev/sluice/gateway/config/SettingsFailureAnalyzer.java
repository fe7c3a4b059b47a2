package dev.sluice.gateway.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.validation.FieldError;
import org.springframework.validation.ObjectError;

/**
 * A setting refused by its Bean Validation constraints stops the start with one line per
 * setting, as an operator writes it: {@code sluice.dispatch.count-delay must be shorter than or
 * equal to 1 second, was 2s}. Boot's own report names the record's field in camel case and shows
 * durations in ISO-8601; this one runs first.
 */
public class SettingsFailureAnalyzer extends AbstractFailureAnalyzer<BindValidationException> implements Ordered {
    @Override
    protected FailureAnalysis analyze(Throwable root, BindValidationException cause) {
        StringBuilder description = new StringBuilder("Refused settings:");
        for (ObjectError error : cause.getValidationErrors()) {
            description.append(System.lineSeparator()).append("    ").append(line(error));
        }
        return new FailureAnalysis(
                description.toString(),
                "Fix the settings named above (README.md, \"Configuration\", lists each one).",
                cause);
    }

    private static String line(ObjectError error) {
        if (!(error instanceof FieldError field)) return error.getObjectName() + ": " + error.getDefaultMessage();
        return field.getObjectName() + "." + DataObjectPropertyName.toDashedForm(field.getField()) + " "
                + field.getDefaultMessage() + ", was " + show(field.getRejectedValue());
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    /** As an operator writes it: a duration in the largest unit that is exact ("90s", "-1500ms"), not ISO-8601 ("PT1M30S"). */
    static String show(Object value) {
        if (!(value instanceof Duration duration)) return String.valueOf(value);
        if (duration.isZero()) return "0s";
        for (ChronoUnit unit : new ChronoUnit[] {
            ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES, ChronoUnit.SECONDS, ChronoUnit.MILLIS
        }) {
            long whole = duration.dividedBy(unit.getDuration());
            if (unit.getDuration().multipliedBy(whole).equals(duration))
                return DurationStyle.SIMPLE.print(duration, unit);
        }
        return DurationStyle.SIMPLE.print(duration, ChronoUnit.NANOS);
    }
}
