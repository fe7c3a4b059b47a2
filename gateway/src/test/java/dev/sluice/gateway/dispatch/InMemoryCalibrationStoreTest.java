package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.dispatch.memory.InMemoryCalibrationStore;

class InMemoryCalibrationStoreTest extends CalibrationStoreContract {
    @Override
    CalibrationStore newStore() {
        return new InMemoryCalibrationStore();
    }
}
