package dev.sluice.gateway.config;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * One setting of a record must be at least another of the same record (times a factor, for
 * durations), or more than it. No standard constraint compares two fields; the violation is
 * reported on {@link #value()}, so the start-up report names that property.
 */
@Target(TYPE)
@Retention(RUNTIME)
@Repeatable(NotLessThan.List.class)
@Constraint(validatedBy = NotLessThanValidator.class)
public @interface NotLessThan {
    /** The record component checked. */
    String value();

    /** The record component it is compared with. */
    String other();

    /** Durations only: {@link #value()} must reach this many times {@link #other()}. */
    int times() default 1;

    /** Equal is not enough. */
    boolean strictly() default false;

    String message() default "";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    @Target(TYPE)
    @Retention(RUNTIME)
    @interface List {
        NotLessThan[] value();
    }
}
