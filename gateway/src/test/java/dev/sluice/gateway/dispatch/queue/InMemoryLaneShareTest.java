package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.queue.memory.InMemoryLaneShare;

class InMemoryLaneShareTest extends LaneShareContract {
    @Override
    LaneShare newShare() {
        return new InMemoryLaneShare();
    }
}
