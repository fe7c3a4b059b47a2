package dev.sluice.lab;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.sluice.gateway.testsupport.Capabilities;
import org.junit.jupiter.api.Test;

/**
 * Over every module on this class path (gateway, lab-provider, lab): no capability cycle, and the
 * gateway never reaches into the lab modules; they plug in through its ports (BuiltInUpstream,
 * AdminApiExtension) by auto-configuration.
 */
class ModuleDependenciesTest {
    static final JavaClasses ALL = Capabilities.mainClasses("dev.sluice");

    @Test
    void noCapabilityInAnyModuleDependsOnItselfThroughOthers() {
        Capabilities.noCycles().check(ALL);
    }

    @Test
    void theGatewayDependsOnNeitherLabModule() {
        noClasses()
                .that()
                .resideInAPackage("dev.sluice.gateway..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.sluice.lab..")
                .check(ALL);
    }

    @Test
    void theLabProviderDoesNotDependOnTheScenarioRunner() {
        noClasses()
                .that()
                .resideInAPackage("dev.sluice.lab.provider..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.sluice.lab.scenario..")
                .check(ALL);
    }
}
