package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.redis.RedisProviderBudgetStore;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import io.lettuce.core.cluster.SlotHash;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The keys one script touches share a Redis Cluster slot for any id, braces included (a tag
 * cut short or left empty by a brace would spread them and every call would fail with
 * CROSSSLOT), and distinct ids keep distinct keys.
 */
class HashTagsTest {
    static Set<Integer> slots(String... keys) {
        return Arrays.stream(keys).map(SlotHash::getSlot).collect(Collectors.toSet());
    }

    @Test
    void theKeysOfOneScriptShareASlotWhateverTheId() {
        Random random = new Random(12);
        String alphabet = "ab{}:%-_ 9é";
        Map<String, String> idByTag = new HashMap<>();
        for (int i = 0; i < 5000; i++) {
            StringBuilder id = new StringBuilder();
            for (int n = random.nextInt(10); n > 0; n--) id.append(alphabet.charAt(random.nextInt(alphabet.length())));
            String s = id.toString();
            assertThat(slots(
                            RedisQuotaStore.key(s, "minute"),
                            RedisQuotaStore.key(s, "hour"),
                            RedisQuotaStore.key(s, "day")))
                    .as("quota keys of '%s'", s)
                    .hasSize(1);
            assertThat(slots(
                            RedisProviderBudgetStore.windowKey(s),
                            RedisProviderBudgetStore.leasesKey(s),
                            RedisProviderBudgetStore.pauseKey(s)))
                    .as("budget keys of '%s'", s)
                    .hasSize(1);
            String previous = idByTag.put(HashTags.tag(s), s);
            assertThat(previous == null || previous.equals(s))
                    .as("'%s' and '%s' share a tag", previous, s)
                    .isTrue();
        }
    }

    @Test
    void anIdWithoutBracesKeepsItsReadableKey() {
        assertThat(RedisQuotaStore.key("acme", "minute")).isEqualTo("sluice:q:{acme}:minute");
        assertThat(RedisProviderBudgetStore.windowKey("default:gpt-4o")).isEqualTo("sluice:b:{default:gpt-4o}:w");
        assertThat(HashTags.tag("}x{")).isEqualTo("{%7Dx%7B}");
    }
}
