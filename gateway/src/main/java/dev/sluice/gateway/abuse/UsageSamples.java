package dev.sluice.gateway.abuse;

import dev.sluice.gateway.api.Stage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A sample as one line of text, for stores that keep strings: space-separated, stages in
 * {@link Stage#SERIES} order, then the {@link Ceiling} (window fill peak room typical refused held reason
 * pressure) when there is one. Lines written before the ceiling existed decode with none.
 */
public final class UsageSamples {
    private UsageSamples() {}

    public static String encode(UsageSample s) {
        StringBuilder b = new StringBuilder(96)
                .append(s.minuteStartMs())
                .append(' ')
                .append(s.tier())
                .append(' ')
                .append(s.tokens())
                .append(' ')
                .append(s.requests())
                .append(' ')
                .append(s.utilisation())
                .append(' ')
                .append(s.window());
        for (Stage st : Stage.SERIES) b.append(' ').append(s.stages().get(st.label()));
        Ceiling c = s.ceiling();
        if (c != null) {
            b.append(' ')
                    .append(c.window())
                    .append(' ')
                    .append(c.fill())
                    .append(' ')
                    .append(c.peak())
                    .append(' ')
                    .append(c.roomTokens())
                    .append(' ')
                    .append(c.typicalTokens())
                    .append(' ')
                    .append(c.refused())
                    .append(' ')
                    .append(c.held())
                    .append(' ')
                    .append(c.reason())
                    .append(' ')
                    .append(c.pressure());
        }
        return b.toString();
    }

    public static UsageSample decode(String line) {
        String[] p = line.split(" ");
        Map<String, Long> stages = new HashMap<>();
        List<Stage> all = Stage.SERIES;
        for (int i = 0; i < all.size() && 6 + i < p.length; i++)
            stages.put(all.get(i).label(), Long.parseLong(p[6 + i]));
        int c = 6 + all.size();
        Ceiling ceiling = p.length >= c + 9
                ? new Ceiling(
                        p[c],
                        Double.parseDouble(p[c + 1]),
                        Double.parseDouble(p[c + 2]),
                        Long.parseLong(p[c + 3]),
                        Long.parseLong(p[c + 4]),
                        Long.parseLong(p[c + 5]),
                        Long.parseLong(p[c + 6]),
                        p[c + 7],
                        Double.parseDouble(p[c + 8]))
                : null;
        return new UsageSample(
                Long.parseLong(p[0]),
                p[1],
                Long.parseLong(p[2]),
                Long.parseLong(p[3]),
                Double.parseDouble(p[4]),
                p[5],
                stages,
                ceiling);
    }
}
