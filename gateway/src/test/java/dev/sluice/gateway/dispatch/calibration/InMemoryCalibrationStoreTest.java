package dev.sluice.gateway.dispatch.calibration;

import dev.sluice.gateway.dispatch.calibration.memory.InMemoryCalibrationStore;

class InMemoryCalibrationStoreTest extends CalibrationStoreContract {
    @Override
    CalibrationStore newStore() {
        return new InMemoryCalibrationStore();
    }
}
