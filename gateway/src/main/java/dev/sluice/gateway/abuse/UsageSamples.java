package dev.sluice.gateway.abuse;

import java.util.HashMap;
import java.util.Map;

/** A sample as one line of text, for stores that keep strings: space-separated, stages in {@link Stage} order. */
public final class UsageSamples {
    private UsageSamples() {
    }

    public static String encode(UsageSample s) {
        StringBuilder b = new StringBuilder(96).append(s.minuteStartMs()).append(' ').append(s.tier()).append(' ')
                .append(s.tokens()).append(' ').append(s.requests()).append(' ').append(s.utilisation()).append(' ')
                .append(s.window());
        for (Stage st : Stage.values()) b.append(' ').append(s.stages().get(st.wire()));
        return b.toString();
    }

    public static UsageSample decode(String line) {
        String[] p = line.split(" ");
        Map<String, Long> stages = new HashMap<>();
        Stage[] all = Stage.values();
        for (int i = 0; i < all.length && 6 + i < p.length; i++) stages.put(all[i].wire(), Long.parseLong(p[6 + i]));
        return new UsageSample(Long.parseLong(p[0]), p[1], Long.parseLong(p[2]), Long.parseLong(p[3]),
                Double.parseDouble(p[4]), p[5], stages);
    }
}
