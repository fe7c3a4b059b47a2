package dev.sluice.gateway.testsupport;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.util.Arrays;

/**
 * The project's capabilities as ArchUnit slices, at two depths, in every module.
 *
 * <ul>
 *   <li>{@link #noCycles()}: one node per capability with everything below it ({@code gateway.quota},
 *       {@code gateway.dispatch} with its rooms, {@code lab.provider}, {@code lab.scenario}…).</li>
 *   <li>{@link #noRoomCycles()}: one node per package at every depth, a package together with its
 *       {@code memory/} and {@code redis/} adapters ({@code dispatch.budget}, {@code dispatch.budget.memory}
 *       and {@code dispatch.budget.redis} are one node; {@code dispatch} and {@code dispatch.budget} are two).
 *       A room below a capability ({@code dispatch.queue}) must not import its parent when the parent
 *       imports it, nor form a cycle with its sibling rooms.</li>
 * </ul>
 */
public final class Capabilities {
    private Capabilities() {}

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

    /** Every package at every depth (its adapters with it) imports the others in one direction only. */
    public static ArchRule noRoomCycles() {
        return SlicesRuleDefinition.slices().assignedFrom(ROOM).should().beFreeOfCycles();
    }

    /** {@code dev.sluice.<module>.<capability>[.adapter…]} → {@code <module>.<capability>}; top-level classes are not a capability. */
    static final SliceAssignment CAPABILITY = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            String[] parts = javaClass.getPackageName().split("\\.");
            if (parts.length < 4 || !parts[0].equals("dev") || !parts[1].equals("sluice"))
                return SliceIdentifier.ignore();
            return SliceIdentifier.of(parts[2] + "." + parts[3]);
        }

        @Override
        public String getDescription() {
            return "capabilities (a package with its memory/ and redis/ adapters)";
        }
    };

    /**
     * {@code dev.sluice.<module>.<capability>[.<room>…][.memory|.redis]} → that package without its adapter
     * segment; top-level classes are not a capability.
     */
    static final SliceAssignment ROOM = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            String[] parts = javaClass.getPackageName().split("\\.");
            if (parts.length < 4 || !parts[0].equals("dev") || !parts[1].equals("sluice"))
                return SliceIdentifier.ignore();
            int end = parts.length;
            while (end > 4 && (parts[end - 1].equals("memory") || parts[end - 1].equals("redis"))) end--;
            return SliceIdentifier.of(String.join(".", Arrays.copyOfRange(parts, 2, end)));
        }

        @Override
        public String getDescription() {
            return "packages at every depth (a package with its memory/ and redis/ adapters)";
        }
    };
}
