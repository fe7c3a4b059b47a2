package dev.sluice.gateway.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class CausesTest {
    @Test
    void findsTheFirstMatchAtAnyDepth() {
        ConnectException refused = new ConnectException("Connection refused");
        Throwable wrapped = new IllegalStateException("call failed", new IOException("io", refused));
        assertThat(Causes.find(wrapped, t -> t instanceof ConnectException)).isSameAs(refused);
        assertThat(Causes.find(wrapped, t -> t instanceof IOException))
                .isInstanceOf(IOException.class)
                .isNotSameAs(refused);
        assertThat(Causes.any(wrapped, t -> t instanceof ConnectException)).isTrue();
    }

    @Test
    void noMatchAndNoFailureAreNull() {
        assertThat(Causes.find(new RuntimeException(), t -> t instanceof ConnectException))
                .isNull();
        assertThat(Causes.any(null, t -> true)).isFalse();
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.SECONDS)
    void aChainThatLoopsBackEnds() {
        Exception inner = new Exception("inner");
        Exception outer = new Exception("outer", inner);
        inner.initCause(outer); // outer -> inner -> outer -> ...
        assertThat(Causes.any(outer, t -> t instanceof ConnectException)).isFalse();
    }
}
