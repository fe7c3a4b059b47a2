package dev.sluice.gateway.spend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.FakeClock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link SpendLedger} must do (in memory, Redis). */
abstract class SpendLedgerContract {
    static final long JUST_BEFORE_MIDNIGHT =
            Instant.parse("2026-12-06T23:59:59.999Z").toEpochMilli();
    static final long MIDNIGHT = Instant.parse("2026-12-07T00:00:00Z").toEpochMilli();
    static final LocalDate DEC_6 = LocalDate.parse("2026-12-06");
    static final LocalDate DEC_7 = LocalDate.parse("2026-12-07");

    final FakeClock clock = new FakeClock(JUST_BEFORE_MIDNIGHT);
    SpendLedger ledger;
    String a;
    String b;

    abstract SpendLedger newLedger(FakeClock clock);

    @BeforeEach
    void setUp() {
        ledger = newLedger(clock);
        a = "a-" + UUID.randomUUID();
        b = "b-" + UUID.randomUUID();
    }

    List<LedgerDay> days(String tenant, LocalDate from, LocalDate to) {
        ledger.flush().block();
        return ledger.days(tenant, from, to).collectList().block();
    }

    @Test
    void aSettlementJustBeforeMidnightUtcLandsInThatDayAndOneAtMidnightInTheNext() {
        ledger.settled(JUST_BEFORE_MIDNIGHT, a, "free", 100, 50, 450);
        ledger.settled(MIDNIGHT, a, "free", 10, 5, 45);
        assertThat(days(a, DEC_6, DEC_7))
                .containsExactly(
                        new LedgerDay(DEC_6, a, "free", new LedgerTotals(100, 50, 1, 450)),
                        new LedgerDay(DEC_7, a, "free", new LedgerTotals(10, 5, 1, 45)));
    }

    @Test
    void settlementsAddUpAcrossFlushesAndTheLastTierOfTheDayIsKept() {
        ledger.settled(MIDNIGHT, a, "free", 100, 50, 450);
        ledger.flush().block();
        ledger.settled(MIDNIGHT + 1_000, a, "free", 1, 2, 9);
        ledger.settled(MIDNIGHT + 2_000, a, "pro", 0, 0, 0);
        assertThat(days(a, DEC_7, DEC_7))
                .containsExactly(new LedgerDay(DEC_7, a, "pro", new LedgerTotals(101, 52, 3, 459)));
    }

    @Test
    void tenantsAreKeptApartAndTheExportListsEveryTenantByDayThenTenant() {
        String first = "0-" + a; // sorts before b
        ledger.settled(MIDNIGHT, b, "pro", 7, 3, 30);
        ledger.settled(MIDNIGHT, first, "free", 1, 1, 6);
        ledger.settled(JUST_BEFORE_MIDNIGHT, b, "pro", 2, 2, 12);
        ledger.flush().block();
        List<LedgerDay> all = ledger.all(DEC_6, DEC_7)
                .filter(d -> d.tenant().equals(first) || d.tenant().equals(b))
                .collectList()
                .block();
        assertThat(all)
                .containsExactly(
                        new LedgerDay(DEC_6, b, "pro", new LedgerTotals(2, 2, 1, 12)),
                        new LedgerDay(DEC_7, first, "free", new LedgerTotals(1, 1, 1, 6)),
                        new LedgerDay(DEC_7, b, "pro", new LedgerTotals(7, 3, 1, 30)));
        assertThat(days(first, DEC_6, DEC_7)).hasSize(1);
    }

    @Test
    void aRangeReturnsOnlyItsDaysAcrossMonthsAndYears() {
        long dec31 = Instant.parse("2026-12-31T12:00:00Z").toEpochMilli();
        long jan1 = Instant.parse("2027-01-01T12:00:00Z").toEpochMilli();
        long jan2 = Instant.parse("2027-01-02T12:00:00Z").toEpochMilli();
        ledger.settled(dec31, a, "free", 1, 0, 1);
        ledger.settled(jan1, a, "free", 2, 0, 2);
        ledger.settled(jan2, a, "free", 3, 0, 3);
        assertThat(days(a, LocalDate.parse("2026-12-31"), LocalDate.parse("2027-01-01")))
                .extracting(d -> d.totals().inputTokens())
                .containsExactly(1L, 2L);
        assertThat(days(a, LocalDate.parse("2027-01-02"), LocalDate.parse("2027-01-31")))
                .extracting(d -> d.totals().micros())
                .containsExactly(3L);
    }

    @Test
    void anUnknownTenantOrAnEmptyRangeHasNoDays() {
        assertThat(days("nobody-" + UUID.randomUUID(), DEC_6, DEC_7)).isEmpty();
        ledger.settled(MIDNIGHT, a, "free", 1, 1, 1);
        assertThat(days(a, DEC_6, DEC_6)).isEmpty();
    }

    @Test
    void concurrentSettlementsFromManyThreadsAreAllCountedWhileFlushesRun() throws Exception {
        int threads = 8;
        int each = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++)
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < each; i++) ledger.settled(MIDNIGHT, a, "free", 3, 2, 7);
                return null;
            }));
        start.countDown();
        while (!done.stream().allMatch(java.util.concurrent.Future::isDone))
            ledger.flush().block();
        for (var f : done) f.get();
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        long n = (long) threads * each;
        assertThat(days(a, DEC_7, DEC_7))
                .containsExactly(new LedgerDay(DEC_7, a, "free", new LedgerTotals(3 * n, 2 * n, n, 7 * n)));
    }
}
