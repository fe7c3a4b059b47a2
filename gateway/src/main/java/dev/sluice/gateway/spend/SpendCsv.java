package dev.sluice.gateway.spend;

import java.util.List;
import java.util.Map;

/**
 * The usage export as CSV (RFC 4180): a header, then one row per tenant per UTC day (with its organisation), USD with six
 * decimals exactly from the micro-dollars. Pure.
 */
public final class SpendCsv {
    public static final String HEADER = "date,tenant,tier,input_tokens,output_tokens,requests,usd,organisation";

    private SpendCsv() {}

    public static String write(List<LedgerDay> rows) {
        return write(rows, Map.of());
    }

    /**
     * @param organisationOf each member tenant's organisation (now: a row is not re-filed when its tenant moves); a
     *     tenant not in it writes an empty field. The column is last so readers of the older seven columns still work.
     */
    public static String write(List<LedgerDay> rows, Map<String, String> organisationOf) {
        StringBuilder out = new StringBuilder(HEADER).append("\r\n");
        for (LedgerDay r : rows) {
            LedgerTotals t = r.totals();
            out.append(r.day())
                    .append(',')
                    .append(field(r.tenant()))
                    .append(',')
                    .append(field(r.tier()))
                    .append(',')
                    .append(t.inputTokens())
                    .append(',')
                    .append(t.outputTokens())
                    .append(',')
                    .append(t.requests())
                    .append(',')
                    .append(SpendViews.usd(t.micros()).toPlainString())
                    .append(',')
                    .append(field(organisationOf.get(r.tenant())))
                    .append("\r\n");
        }
        return out.toString();
    }

    /**
     * Quoted where CSV needs it; a value a spreadsheet would run as a formula ({@code =}, {@code +},
     * {@code -}, {@code @}) gets a leading apostrophe (ids are operator-chosen, but the file is opened elsewhere).
     */
    static String field(String v) {
        if (v == null) return "";
        String s = !v.isEmpty() && "=+-@".indexOf(v.charAt(0)) >= 0 ? "'" + v : v;
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) return s;
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
