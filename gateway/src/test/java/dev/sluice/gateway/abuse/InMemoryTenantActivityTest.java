package dev.sluice.gateway.abuse;

import dev.sluice.gateway.abuse.memory.InMemoryTenantActivity;
import dev.sluice.gateway.quota.FakeClock;

class InMemoryTenantActivityTest extends TenantActivityContract {
    @Override
    TenantActivity newActivity(FakeClock clock) {
        return new InMemoryTenantActivity(clock);
    }
}
