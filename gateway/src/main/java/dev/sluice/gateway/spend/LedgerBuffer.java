package dev.sluice.gateway.spend;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Settlements added up in this process, per tenant and UTC day, until they are taken. A write is
 * one atomic {@code merge} of immutable values (no lock, no store call), so the request path can
 * call it on any thread; {@link #drain} takes each cell with an atomic {@code remove}, so a
 * settlement racing a drain lands in this drain or the next, never in neither and never twice.
 */
public final class LedgerBuffer {
    private record Key(String tenant, LocalDate day) {}

    private record Cell(String tier, LedgerTotals totals) {
        Cell plus(Cell later) {
            return new Cell(later.tier != null ? later.tier : tier, totals.plus(later.totals));
        }
    }

    private final ConcurrentHashMap<Key, Cell> cells = new ConcurrentHashMap<>();

    public void add(LocalDate day, String tenant, String tier, LedgerTotals totals) {
        if (tenant == null || totals.isZero()) return;
        cells.merge(new Key(tenant, day), new Cell(tier, totals), Cell::plus);
    }

    /** Puts rows back (a flush that surely did not reach the store): they go with the next one. */
    public void putBack(List<LedgerDay> rows) {
        // A row put back is older than what came meanwhile: the later tier wins.
        for (LedgerDay r : rows)
            cells.merge(new Key(r.tenant(), r.day()), new Cell(r.tier(), r.totals()), (now, back) -> back.plus(now));
    }

    /** Everything added since the last drain, and forgets it. */
    public List<LedgerDay> drain() {
        List<LedgerDay> out = new ArrayList<>();
        for (Key k : cells.keySet()) {
            Cell c = cells.remove(k);
            if (c != null) out.add(new LedgerDay(k.day(), k.tenant(), c.tier(), c.totals()));
        }
        return out;
    }

    /** What is held, without taking it. */
    public List<LedgerDay> snapshot() {
        List<LedgerDay> out = new ArrayList<>();
        cells.forEach((k, c) -> out.add(new LedgerDay(k.day(), k.tenant(), c.tier(), c.totals())));
        return out;
    }

    /** Forgets the days before {@code first}. */
    public void forgetBefore(LocalDate first) {
        cells.keySet().removeIf(k -> k.day().isBefore(first));
    }

    public boolean isEmpty() {
        return cells.isEmpty();
    }
}
