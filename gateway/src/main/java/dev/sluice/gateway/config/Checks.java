package dev.sluice.gateway.config;

import java.time.Duration;

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
            throw new IllegalArgumentException(property + " must be a positive duration, was " + value);
        }
        return value;
    }

    static Duration notNegative(String property, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(property + " must be zero or a positive duration, was " + value);
        }
        return value;
    }

    static int atLeast(String property, int value, int min) {
        if (value < min) throw new IllegalArgumentException(property + " must be at least " + min + ", was " + value);
        return value;
    }
}
