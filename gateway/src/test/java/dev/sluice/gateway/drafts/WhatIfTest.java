package dev.sluice.gateway.drafts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.shadow.ShadowMinute;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WhatIfTest {
    static final long T = 1_800_000_000_000L - 1_800_000_000_000L % 60_000;

    static ShadowMinute m(int minute, String tenant, long liveRejected, long draftRejected, long draftDowngraded) {
        return new ShadowMinute(
                T + minute * 60_000L,
                tenant,
                "free",
                3,
                Map.of("passed", 10L, "rejected", liveRejected),
                Map.of(
                        "passed",
                        10L - draftRejected - draftDowngraded + liveRejected,
                        "rejected",
                        draftRejected,
                        "downgraded",
                        draftDowngraded));
    }

    @Test
    void totalsPerStageAndRefusalsPerMinuteOverTheWholeSpan() {
        WhatIf.Result r =
                WhatIf.of(List.of(m(0, "a", 1, 3, 0), m(0, "b", 0, 2, 1), m(2, "a", 0, 4, 0)), T, T + 180_000);
        assertThat(r.live())
                .containsExactly(
                        Map.entry("passed", 30L),
                        Map.entry("delayed", 0L),
                        Map.entry("downgraded", 0L),
                        Map.entry("rejected", 1L));
        assertThat(r.draft())
                .containsEntry("rejected", 9L)
                .containsEntry("downgraded", 1L)
                .containsEntry("passed", 21L);
        assertThat(r.minutes())
                .containsExactly(
                        new WhatIf.MinuteRefusals(T, 1, 5),
                        new WhatIf.MinuteRefusals(T + 60_000, 0, 0),
                        new WhatIf.MinuteRefusals(T + 120_000, 0, 4));
        assertThat(r.tenantMinutes()).isEqualTo(3);
    }

    @Test
    void minutesOutsideTheSpanAreLeftOut() {
        WhatIf.Result r = WhatIf.of(List.of(m(0, "a", 0, 3, 0), m(5, "a", 0, 3, 0)), T + 30_000, T + 300_000);
        assertThat(r.draft()).containsEntry("rejected", 0L);
        assertThat(r.minutes())
                .first()
                .extracting(WhatIf.MinuteRefusals::minuteStartMs)
                .isEqualTo(T + 60_000);
        assertThat(r.minutes()).hasSize(4);
    }

    @Test
    void theTenMostAffectedByAddedRefusalsThenDowngradesUnchangedOnesLeftOut() {
        List<ShadowMinute> minutes = new ArrayList<>();
        for (int i = 0; i < 12; i++) minutes.add(m(0, "t" + i, 0, i, 0));
        minutes.add(m(1, "d", 0, 3, 5)); // as many refusals added as t3, and downgrades besides
        WhatIf.Result r = WhatIf.of(minutes, T, T + 120_000);
        assertThat(r.tenants())
                .extracting(WhatIf.TenantEffect::tenant)
                .containsExactly("t11", "t10", "t9", "t8", "t7", "t6", "t5", "t4", "d", "t3");
        assertThat(r.tenants().get(0).live()).containsEntry("rejected", 0L);
        assertThat(r.tenants().get(0).draft()).containsEntry("rejected", 11L);
        assertThat(WhatIf.of(List.of(m(0, "same", 2, 2, 0)), T, T + 60_000).tenants())
                .isEmpty();
    }
}
