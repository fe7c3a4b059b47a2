package dev.sluice.gateway.testsupport;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The project's capabilities as ArchUnit slices: one node per capability package together with its
 * adapters ({@code dispatch}, {@code dispatch.memory} and {@code dispatch.redis} are one node), in every
 * module: {@code gateway.quota}, {@code lab.provider}, {@code lab.scenario}…
 */
public final class Capabilities {
    private Capabilities() {
    }

    /** Main classes only (tests may reach across capabilities), from every module on the class path under {@code root}. */
    public static JavaClasses mainClasses(String root) {
        return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar")) // the modules' test fixtures
                .importPackages(root);
    }

    public static ArchRule noCycles() {
        return SlicesRuleDefinition.slices().assignedFrom(CAPABILITY).should().beFreeOfCycles();
    }

    /** {@code dev.sluice.<module>.<capability>[.adapter…]} → {@code <module>.<capability>}; top-level classes are not a capability. */
    static final SliceAssignment CAPABILITY = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            String[] parts = javaClass.getPackageName().split("\\.");
            if (parts.length < 4 || !parts[0].equals("dev") || !parts[1].equals("sluice")) return SliceIdentifier.ignore();
            return SliceIdentifier.of(parts[2] + "." + parts[3]);
        }

        @Override
        public String getDescription() {
            return "capabilities (a package with its memory/ and redis/ adapters)";
        }
    };
}
