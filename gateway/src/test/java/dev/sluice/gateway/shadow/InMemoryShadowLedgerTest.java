package dev.sluice.gateway.shadow;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.shadow.memory.InMemoryShadowLedger;

class InMemoryShadowLedgerTest extends ShadowLedgerContract {
    @Override
    ShadowLedgerStore newLedger(FakeClock clock) {
        return new InMemoryShadowLedger(clock);
    }
}
