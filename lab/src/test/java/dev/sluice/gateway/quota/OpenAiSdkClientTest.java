package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.lab.scenario.ScaledClock;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * The official OpenAI Java SDK, pointed at the gateway with a free-tier key, in a loop that
 * asks for more than the tier's minute: it gets 429s, retries on the gateway's Retry-After
 * (the SDK caps one wait at 8 s, so it retries a few times within the minute), and every
 * call completes. The quota runs on the lab's clock ten times faster than the wall, so its
 * minute passes in 6 s and the SDK's capped waits (real ones) see the window free again: about
 * ten seconds instead of a minute. The SDK, its retry policy and HTTP are the real ones.
 */
@GatewayTest(properties = "sluice.lab.completion-tokens=100000") // the lab writes max_tokens: usage = estimate
class OpenAiSdkClientTest {
    @TestConfiguration
    static class FastMinute {
        @Bean
        @Primary
        QuotaClock fastQuotaClock() {
            return new QuotaClock(new ScaledClock(10));
        }
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    MeterRegistry meters;

    @Test
    void aWellBehavedSdkClientThatHonoursRetryAfterNeverFailsACall() {
        String key = TestTenants.create(tenants, "sdk", "free").key();
        double rejectedBefore = meters.counter("sluice.decisions", "tier", "free", "stage", "rejected")
                .count();

        OpenAIClient client = OpenAIOkHttpClient.builder()
                .baseUrl("http://127.0.0.1:" + port + "/v1")
                .apiKey(key)
                .maxRetries(15)
                .build();
        List<ChatCompletion> answers = new ArrayList<>();
        // 5 × ~3 000 tokens against 10 000 a minute: the fourth call must wait for the first to leave the window.
        for (int page = 1; page <= 5; page++) {
            answers.add(client.chat()
                    .completions()
                    .create(ChatCompletionCreateParams.builder()
                            .model(ChatModel.GPT_4O_MINI)
                            .maxTokens(3_000)
                            .addUserMessage("Extract the text of page " + page)
                            .build()));
        }

        assertThat(answers).hasSize(5).allSatisfy(a -> assertThat(a.choices()).isNotEmpty());
        double rejected = meters.counter("sluice.decisions", "tier", "free", "stage", "rejected")
                        .count()
                - rejectedBefore;
        assertThat(rejected).as("the client was told to wait at least once").isGreaterThanOrEqualTo(1);
    }
}
