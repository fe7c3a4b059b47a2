package dev.sluice.gateway.api;

import dev.sluice.gateway.support.Drainable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The shutdown's steps, in the order {@link ShutdownDrain} gives them. */
@Configuration(proxyBeanMethods = false)
public class ShutdownConfiguration {
    /** Store calls that finish requests in the background; shutdown waits for them (see {@link ShutdownDrain}). */
    @Bean
    PendingWork pendingWork() {
        return new PendingWork();
    }

    @Bean
    ShutdownDrain.CloseTheLines closeTheLines(ShutdownDrain.Lines lines) {
        return new ShutdownDrain.CloseTheLines(lines);
    }

    @Bean
    ShutdownDrain.FlushPendingWork flushPendingWork(PendingWork pending, LifecycleProperties lifecycle) {
        return new ShutdownDrain.FlushPendingWork(pending, lifecycle.getTimeoutPerShutdownPhase());
    }

    /**
     * Every bean that holds work back in batches, in their order. Looked up when the context
     * starts, once every bean exists: a bean declared by its port (the provider budget store) is
     * known to be {@link Drainable} only by what was built.
     */
    @Bean
    ShutdownDrain.FlushBatches flushBatches(ObjectProvider<Drainable> batched) {
        return new ShutdownDrain.FlushBatches(() -> batched.orderedStream().toList());
    }
}
