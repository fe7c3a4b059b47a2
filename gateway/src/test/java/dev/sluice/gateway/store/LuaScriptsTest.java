package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.script.RedisScript;

class LuaScriptsTest {
    @Test
    void partsAreJoinedInOrderIntoOneScriptWithAFixedSha() {
        RedisScript<Long> script = LuaScripts.load(Long.class, "budget_common", "budget_release");
        assertThat(script.getScriptAsString())
                .startsWith("-- Sluice provider budget: the helpers")
                .contains("\n-- Sluice provider budget: free a leased slot");
        assertThat(script.getSha1()).hasSize(40).isEqualTo(script.getSha1());
        assertThat(script.getResultType()).isEqualTo(Long.class);
    }

    @Test
    void anIncludeIsReplacedInPlaceByTheLibraryOnceAndOnlyOnce() {
        String quota = LuaScripts.load(Long.class, "quota_acquire").getScriptAsString();
        assertThat(quota)
                .startsWith("-- Sluice tenant quota: check every sliding window")
                .doesNotContainPattern("(?m)^--@include");
        assertThat(quota.indexOf("-- Sluice sliding window: the helpers"))
                .isGreaterThan(quota.indexOf("-- Returns {admitted"))
                .isLessThan(quota.indexOf("local now = clock(ARGV[1])"));

        // budget_release includes budget_common, which includes window_lib: each is in the script once.
        String budget =
                LuaScripts.load(Long.class, "budget_common", "budget_release").getScriptAsString();
        assertThat(occurrences(budget, "-- Sluice sliding window: the helpers")).isOne();
        assertThat(occurrences(budget, "-- Sluice provider budget: the helpers"))
                .isOne();
        assertThat(budget).contains("-- budget_common.lua: included above").doesNotContainPattern("(?m)^--@include");
        assertThat(LuaScripts.load(Long.class, "budget_release").getScriptAsString())
                .contains("-- Sluice provider budget: the helpers", "-- Sluice sliding window: the helpers");
    }

    private static int occurrences(String text, String part) {
        return text.split(Pattern.quote(part), -1).length - 1;
    }

    @Test
    void aMissingIncludeIsNamed() {
        assertThatThrownBy(() -> LuaScripts.load(Long.class, "test_missing_include"))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("scripts/no_such_lib.lua");
    }

    @Test
    void aMissingScriptIsNamed() {
        assertThatThrownBy(() -> LuaScripts.load(Long.class, "no_such_script"))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("scripts/no_such_script.lua");
    }
}
