package dev.sluice.gateway.architecture;

import dev.sluice.gateway.testsupport.Capabilities;
import org.junit.jupiter.api.Test;

/**
 * The gateway's capabilities import each other in one direction only, and so do the packages at every
 * depth below them (dispatch's rooms): a new cycle fails here, named.
 */
class CapabilityCyclesTest {

    @Test
    void noCapabilityOfTheGatewayDependsOnItselfThroughOthers() {
        Capabilities.noCycles().check(Capabilities.mainClasses("dev.sluice.gateway"));
    }

    @Test
    void noPackageOfTheGatewayAtAnyDepthDependsOnItselfThroughOthers() {
        Capabilities.noRoomCycles().check(Capabilities.mainClasses("dev.sluice.gateway"));
    }
}
