package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.SpendBudget;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class CalendarPeriodTest {
    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    @Test
    void aDayRunsFromMidnightToMidnightInTheZone() {
        CalendarPeriod utc = CalendarPeriod.day(at("2026-12-06T03:56:00Z"), ZoneOffset.UTC);
        assertThat(utc.label()).isEqualTo("2026-12-06");
        assertThat(utc.startMs()).isEqualTo(at("2026-12-06T00:00:00Z"));
        assertThat(utc.endMs()).isEqualTo(at("2026-12-07T00:00:00Z"));

        CalendarPeriod ny = CalendarPeriod.day(at("2026-12-06T03:56:00Z"), NEW_YORK);
        assertThat(ny.label()).as("still the 5th in New York").isEqualTo("2026-12-05");
        assertThat(ny.endMs()).isEqualTo(at("2026-12-06T05:00:00Z"));
    }

    @Test
    void theDayTheClocksSpringForwardIs23HoursAndTheDayTheyFallBack25() {
        CalendarPeriod spring = CalendarPeriod.day(at("2026-03-08T12:00:00Z"), NEW_YORK);
        assertThat(spring.startMs()).isEqualTo(at("2026-03-08T05:00:00Z"));
        assertThat(spring.endMs()).isEqualTo(at("2026-03-09T04:00:00Z"));
        assertThat(spring.lengthMs()).isEqualTo(23 * 3_600_000L);

        CalendarPeriod fall = CalendarPeriod.day(at("2026-11-01T12:00:00Z"), NEW_YORK);
        assertThat(fall.lengthMs()).isEqualTo(25 * 3_600_000L);
        assertThat(fall.endMs()).isEqualTo(at("2026-11-02T05:00:00Z"));
    }

    @Test
    void whereTheGapSwallowsMidnightTheDayStartsAtTheFirstInstantAfterIt() {
        // Santiago springs forward at midnight: 2026-09-06 00:00 does not exist there, the day starts at 01:00.
        ZoneId santiago = ZoneId.of("America/Santiago");
        CalendarPeriod d = CalendarPeriod.day(at("2026-09-06T12:00:00Z"), santiago);
        assertThat(d.label()).isEqualTo("2026-09-06");
        assertThat(Instant.ofEpochMilli(d.startMs()).atZone(santiago).getHour()).isEqualTo(1);
        assertThat(d.lengthMs()).isEqualTo(23 * 3_600_000L);
    }

    @Test
    void theTurnItselfBelongsToTheNewPeriod() {
        long midnight = at("2026-12-07T00:00:00Z");
        assertThat(CalendarPeriod.day(midnight - 1, ZoneOffset.UTC).label()).isEqualTo("2026-12-06");
        assertThat(CalendarPeriod.day(midnight, ZoneOffset.UTC).label()).isEqualTo("2026-12-07");
    }

    @Test
    void aMonthRunsFromItsFirstDayToTheNextsAcrossItsDstTurns() {
        CalendarPeriod march = CalendarPeriod.month(at("2026-03-20T12:00:00Z"), NEW_YORK);
        assertThat(march.label()).isEqualTo("2026-03");
        assertThat(march.startMs()).isEqualTo(at("2026-03-01T05:00:00Z"));
        assertThat(march.endMs()).isEqualTo(at("2026-04-01T04:00:00Z"));
        assertThat(march.lengthMs()).isEqualTo((31 * 24 - 1) * 3_600_000L);
        CalendarPeriod december = CalendarPeriod.month(at("2026-12-31T23:59:59Z"), ZoneOffset.UTC);
        assertThat(december.endMs()).isEqualTo(at("2027-01-01T00:00:00Z"));
    }

    @Test
    void aBudgetsLimitsAreItsCappedPeriodsNamedByThePeriod() {
        SpendBudget both = new SpendBudget(1_000_000, 20_000_000, NEW_YORK);
        assertThat(SpendLimit.of(both, at("2026-12-06T03:56:00Z")))
                .containsExactly(
                        new SpendLimit("spend:day:2026-12-05", "day", 1_000_000, at("2026-12-06T05:00:00Z")),
                        new SpendLimit("spend:month:2026-12", "month", 20_000_000, at("2027-01-01T05:00:00Z")));
        assertThat(SpendLimit.of(new SpendBudget(0, 5, ZoneOffset.UTC), 0))
                .extracting(SpendLimit::period)
                .containsExactly("month");
        assertThat(SpendLimit.of(SpendBudget.NONE, 0)).isEmpty();
    }
}
