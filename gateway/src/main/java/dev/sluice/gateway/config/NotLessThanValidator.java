package dev.sluice.gateway.config;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;

/** Checks {@link NotLessThan} on a settings record; its message names the other setting and its value. */
public class NotLessThanValidator implements ConstraintValidator<NotLessThan, Record> {
    private NotLessThan rule;

    @Override
    public void initialize(NotLessThan rule) {
        this.rule = rule;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public boolean isValid(Record settings, ConstraintValidatorContext context) {
        if (settings == null) return true;
        Comparable value = (Comparable) component(settings, rule.value());
        Object other = component(settings, rule.other());
        if (value == null || other == null) return true; // the single-field constraints say what is missing
        Object bound = other instanceof Duration d ? d.multipliedBy(rule.times()) : other;
        int order = value.compareTo(bound);
        if (rule.strictly() ? order > 0 : order >= 0) return true;
        String times = rule.times() == 1 ? "" : rule.times() + " times ";
        String message = (rule.strictly() ? "must be more than " : "must be at least ") + times
                + DataObjectPropertyName.toDashedForm(rule.other()) + " (" + SettingsFailureAnalyzer.show(other) + ")";
        context.disableDefaultConstraintViolation();
        // Escaped: the message is taken as a template, and a value is no expression.
        context.buildConstraintViolationWithTemplate(
                        message.replace("\\", "\\\\").replace("{", "\\{").replace("$", "\\$"))
                .addPropertyNode(rule.value())
                .addConstraintViolation();
        return false;
    }

    private static Object component(Record settings, String name) {
        for (RecordComponent component : settings.getClass().getRecordComponents()) {
            if (!component.getName().equals(name)) continue;
            try {
                return component.getAccessor().invoke(settings);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(
                        "cannot read " + name + " of " + settings.getClass().getSimpleName(), e);
            }
        }
        throw new IllegalArgumentException(settings.getClass().getSimpleName() + " has no setting " + name);
    }
}
