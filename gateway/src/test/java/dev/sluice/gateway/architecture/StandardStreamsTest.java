package dev.sluice.gateway.architecture;

import static com.tngtech.archunit.library.GeneralCodingRules.NO_CLASSES_SHOULD_ACCESS_STANDARD_STREAMS;

import dev.sluice.gateway.testsupport.Capabilities;
import org.junit.jupiter.api.Test;

/**
 * The product writes through its logger, never to standard out or error: a print left from a
 * debugging session runs on every request (one did, in a placement on the dispatch loop, and
 * slowed the judged runs measured with it).
 */
class StandardStreamsTest {
    @Test
    void noProductionClassWritesToStandardStreams() {
        NO_CLASSES_SHOULD_ACCESS_STANDARD_STREAMS.check(Capabilities.mainClasses("dev.sluice.gateway"));
    }
}
