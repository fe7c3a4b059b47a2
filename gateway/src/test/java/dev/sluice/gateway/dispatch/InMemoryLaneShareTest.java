package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.dispatch.memory.InMemoryLaneShare;

class InMemoryLaneShareTest extends LaneShareContract {
    @Override
    LaneShare newShare() {
        return new InMemoryLaneShare();
    }
}
