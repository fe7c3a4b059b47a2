package dev.sluice.gateway.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.springframework.boot.convert.DurationStyle;

/**
 * The checks the settings records run when they are bound. Each message names the property as
 * an operator writes it and the value it was given, so a bad setting stops the start with a
 * line that says what to fix.
 */
final class Checks {
    private Checks() {
    }

    static Duration positive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be a positive duration, was " + show(value));
        }
        return value;
    }

    static Duration notNegative(String property, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(property + " must be zero or a positive duration, was " + show(value));
        }
        return value;
    }

    static Duration within(String property, Duration value, Duration max) {
        if (value == null || value.isNegative() || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(property + " must be between 0s and " + show(max) + ", was " + show(value));
        }
        return value;
    }

    /** As an operator writes it, in the largest unit that is exact ("90s", "-1500ms"), not ISO-8601 ("PT1M30S"). */
    static String show(Duration value) {
        if (value == null) return "nothing";
        if (value.isZero()) return "0s";
        for (ChronoUnit unit : new ChronoUnit[] {ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES, ChronoUnit.SECONDS,
                ChronoUnit.MILLIS}) {
            long whole = value.dividedBy(unit.getDuration());
            if (unit.getDuration().multipliedBy(whole).equals(value)) return DurationStyle.SIMPLE.print(value, unit);
        }
        return DurationStyle.SIMPLE.print(value, ChronoUnit.NANOS);
    }

    static int atLeast(String property, int value, int min) {
        if (value < min) throw new IllegalArgumentException(property + " must be at least " + min + ", was " + value);
        return value;
    }
}
