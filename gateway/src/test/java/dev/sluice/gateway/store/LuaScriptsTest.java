package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.script.RedisScript;

class LuaScriptsTest {
    @Test
    void partsAreJoinedInOrderIntoOneScriptWithAFixedSha() {
        RedisScript<Long> script = LuaScripts.load(Long.class, "budget_common", "budget_release");
        assertThat(script.getScriptAsString()).startsWith("-- Sluice provider budget: the helpers")
                .contains("\n-- Sluice provider budget: free a leased slot");
        assertThat(script.getSha1()).hasSize(40).isEqualTo(script.getSha1());
        assertThat(script.getResultType()).isEqualTo(Long.class);
    }

    @Test
    void aMissingScriptIsNamed() {
        assertThatThrownBy(() -> LuaScripts.load(Long.class, "no_such_script"))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("scripts/no_such_script.lua");
    }
}
