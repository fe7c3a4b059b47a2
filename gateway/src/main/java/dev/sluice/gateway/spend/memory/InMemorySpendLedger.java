package dev.sluice.gateway.spend.memory;

import dev.sluice.gateway.spend.LedgerBuffer;
import dev.sluice.gateway.spend.LedgerDay;
import dev.sluice.gateway.spend.LedgerRange;
import dev.sluice.gateway.spend.LedgerTotals;
import dev.sluice.gateway.spend.SpendLedger;
import java.time.Clock;
import java.time.LocalDate;
import reactor.core.publisher.Flux;

/** The single-instance ledger: the buffer is the store; days older than {@link #KEPT_DAYS} are forgotten. */
public final class InMemorySpendLedger implements SpendLedger {
    private final LedgerBuffer days = new LedgerBuffer();
    private final Clock clock;

    public InMemorySpendLedger(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void settled(long nowMs, String tenantId, String tierName, long in, long out, long micros) {
        days.add(LedgerRange.dayOf(nowMs), tenantId, tierName, new LedgerTotals(in, out, 1, micros));
    }

    @Override
    public Flux<LedgerDay> days(String tenantId, LocalDate from, LocalDate to) {
        return all(from, to).filter(d -> d.tenant().equals(tenantId));
    }

    @Override
    public Flux<LedgerDay> all(LocalDate from, LocalDate to) {
        return Flux.defer(() -> {
            days.forgetBefore(LedgerRange.dayOf(clock.millis()).minusDays(KEPT_DAYS + 30L));
            return Flux.fromIterable(days.snapshot().stream()
                    .filter(d -> !d.day().isBefore(from) && !d.day().isAfter(to))
                    .sorted(LedgerDay.ORDER)
                    .toList());
        });
    }
}
