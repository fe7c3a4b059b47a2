package dev.sluice.gateway.architecture;

import dev.sluice.gateway.testsupport.Capabilities;
import org.junit.jupiter.api.Test;

/** The gateway's capabilities import each other in one direction only: a new cycle fails here, named. */
class CapabilityCyclesTest {

    @Test
    void noCapabilityOfTheGatewayDependsOnItselfThroughOthers() {
        Capabilities.noCycles().check(Capabilities.mainClasses("dev.sluice.gateway"));
    }
}
