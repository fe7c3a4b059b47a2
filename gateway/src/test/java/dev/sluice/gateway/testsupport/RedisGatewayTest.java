package dev.sluice.gateway.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.context.ContextConfiguration;

/**
 * A {@link GatewayTest} whose stores are the shared test Redis (database 0), found through
 * {@link TestRedis}. A test that needs a database of its own starts a {@link GatewayReplica}
 * with {@code redis(database)} instead: a cached context cannot be told to flush it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@GatewayTest
@ContextConfiguration(initializers = TestRedis.Initializer.class)
public @interface RedisGatewayTest {
    @AliasFor(annotation = GatewayTest.class, attribute = "properties")
    String[] properties() default {};
}
