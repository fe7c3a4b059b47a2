package dev.sluice.gateway.abuse;

import dev.sluice.gateway.abuse.memory.InMemoryUsageHistory;

class InMemoryUsageHistoryTest extends UsageHistoryContract {
    @Override
    UsageHistory newHistory() {
        return new InMemoryUsageHistory();
    }
}
