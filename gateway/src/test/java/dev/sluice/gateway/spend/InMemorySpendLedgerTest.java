package dev.sluice.gateway.spend;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.spend.memory.InMemorySpendLedger;

class InMemorySpendLedgerTest extends SpendLedgerContract {
    @Override
    SpendLedger newLedger(FakeClock clock) {
        return new InMemorySpendLedger(clock);
    }
}
