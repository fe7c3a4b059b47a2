package dev.sluice.gateway.config;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Money as the gateway counts it: whole micro-dollars in a {@code long} (USD 1 = 1,000,000), never
 * a double, so a budget's sum is exact. Every operation saturates instead of wrapping, so a hostile
 * {@code max_tokens} or a price near the bounds can only make a request dearer, never free.
 *
 * <p>A price per million tokens in USD is, to the digit, micro-dollars per token; it is held as
 * micro-dollars per million tokens ({@code $0.15} = 150,000) so that sub-micro-dollar prices
 * stay whole. A request's cost is rounded up to the micro-dollar: never under-charged.
 */
public final class Money {
    public static final long MICROS_PER_USD = 1_000_000L;

    /**
     * The most a spend counter holds and the highest budget that counts: 2^53-1 micro-dollars
     * (about USD 9 billion), so the Lua twin, whose numbers are doubles, counts exactly what the
     * Java counts. Larger amounts count as it.
     */
    public static final long MAX_MICROS = (1L << 53) - 1;

    private Money() {}

    /** a + b, saturating at the long's bounds. */
    public static long add(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        return sum;
    }

    /** Within [0, {@link #MAX_MICROS}]: how a counter or a cap takes any amount. */
    public static long clamp(long micros) {
        return Math.max(0, Math.min(MAX_MICROS, micros));
    }

    /**
     * What {@code tokens} cost at {@code microsPerMillion} (micro-dollars per million tokens),
     * rounded up to the micro-dollar; saturates at {@link Long#MAX_VALUE}.
     */
    public static long cost(long tokens, long microsPerMillion) {
        if (tokens <= 0 || microsPerMillion <= 0) return 0;
        long millions = tokens / 1_000_000L;
        long rest = tokens % 1_000_000L;
        long whole;
        try {
            whole = Math.multiplyExact(millions, microsPerMillion);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
        // rest < 10^6: rest × price overflows only for prices above ~9.2e12 (USD 9.2 million per million tokens).
        long part;
        try {
            long product = Math.multiplyExact(rest, microsPerMillion);
            part = product / 1_000_000L + (product % 1_000_000L == 0 ? 0 : 1);
        } catch (ArithmeticException overflow) {
            part = BigDecimal.valueOf(rest)
                    .multiply(BigDecimal.valueOf(microsPerMillion))
                    .divide(BigDecimal.valueOf(1_000_000L), 0, RoundingMode.CEILING)
                    .min(BigDecimal.valueOf(Long.MAX_VALUE))
                    .longValueExact();
        }
        return add(whole, part);
    }

    /** A request's cost: its input at the input price plus its output at the output price. */
    public static long cost(
            long inputTokens, long outputTokens, long inputMicrosPerMillion, long outputMicrosPerMillion) {
        return add(cost(inputTokens, inputMicrosPerMillion), cost(outputTokens, outputMicrosPerMillion));
    }

    /** USD, as the configuration writes it, in micro-dollars (rounded to the nearest; prices only). */
    public static long micros(double usd) {
        if (!(usd >= 0) || Double.isInfinite(usd)) throw new IllegalArgumentException("not an amount: " + usd);
        return BigDecimal.valueOf(usd)
                .multiply(BigDecimal.valueOf(MICROS_PER_USD))
                .setScale(0, RoundingMode.HALF_UP)
                .min(BigDecimal.valueOf(Long.MAX_VALUE))
                .longValueExact();
    }

    /** Micro-dollars as a tenant reads them: {@code $1.00}, {@code $0.01}, {@code $0.000123} (at least two decimals, no trailing zeros past them). */
    public static String usd(long micros) {
        BigDecimal v = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        if (v.scale() < 2) v = v.setScale(2, RoundingMode.UNNECESSARY);
        return (micros < 0 ? "-$" + v.negate().toPlainString() : "$" + v.toPlainString());
    }

    /** The same without the sign, as a header's value: {@code 0.006667}. */
    public static String plain(long micros) {
        BigDecimal v = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        if (v.scale() < 2) v = v.setScale(2, RoundingMode.UNNECESSARY);
        return v.toPlainString();
    }
}
