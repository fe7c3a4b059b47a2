package dev.sluice.gateway.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.core.annotation.AliasFor;

/**
 * A whole gateway on a random port with a {@code WebTestClient} bound to it: the one way a test
 * class says "the real application over real HTTP". Where the provider comes from is the test's:
 * {@code sluice.provider.url} (a {@link FakeUpstreamExtension}, or {@link FakeUpstream#NO_UPSTREAM_CALLS}),
 * or, in the lab-provider and lab modules, nothing, and the lab provider is wired in.
 * With {@link RedisGatewayTest} the stores are the shared {@link TestRedis}; here they are in memory.
 *
 * <p>Classes with the same {@code properties} (and nothing else of their own, such as a
 * {@code @DynamicPropertySource}) share one cached context, as with {@code @SpringBootTest}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
public @interface GatewayTest {
    /** {@code name=value} pairs, as {@link SpringBootTest#properties()}. */
    @AliasFor(annotation = SpringBootTest.class, attribute = "properties")
    String[] properties() default {};
}
