package dev.sluice.bench;

/**
 * The counters the driver reads before and after a measured slice: the CPU time each process has
 * used so far (ns; -1 when it cannot be read), Redis's command counts and the wall clock. What a
 * slice cost is {@code after.minus(before)}; CPU per request is that over the requests it sent.
 *
 * @param armCpuNs     the arm's JVM, every thread but the JIT compiler's (0 for the direct arm)
 * @param armJitNs     the arm's JIT compiler threads
 * @param redisCpuNs   redis-server
 * @param providerCpuNs the fake provider
 * @param driverCpuNs  this JVM: the load generator (and its Redis probe)
 * @param redisCalls   every Redis command but INFO (the probe's own)
 * @param redisEvalsha EVALSHA and EVAL
 * @param wallNs       {@code System.nanoTime()}
 */
record Readings(
        long armCpuNs,
        long armJitNs,
        long redisCpuNs,
        long providerCpuNs,
        long driverCpuNs,
        long redisCalls,
        long redisEvalsha,
        long wallNs) {

    /** An empty total, to add slices to. */
    static final Readings ZERO = new Readings(0, 0, 0, 0, 0, 0, 0, 0);

    /** What happened between {@code before} and this reading. */
    Readings minus(Readings before) {
        return new Readings(
                delta(before.armCpuNs, armCpuNs),
                delta(before.armJitNs, armJitNs),
                delta(before.redisCpuNs, redisCpuNs),
                delta(before.providerCpuNs, providerCpuNs),
                delta(before.driverCpuNs, driverCpuNs),
                delta(before.redisCalls, redisCalls),
                delta(before.redisEvalsha, redisEvalsha),
                delta(before.wallNs, wallNs));
    }

    /** Two slices' totals together; a counter unknown in either stays unknown (-1). */
    Readings plus(Readings other) {
        return new Readings(
                sum(armCpuNs, other.armCpuNs),
                sum(armJitNs, other.armJitNs),
                sum(redisCpuNs, other.redisCpuNs),
                sum(providerCpuNs, other.providerCpuNs),
                sum(driverCpuNs, other.driverCpuNs),
                sum(redisCalls, other.redisCalls),
                sum(redisEvalsha, other.redisEvalsha),
                sum(wallNs, other.wallNs));
    }

    /** The arm's whole process: its threads and its JIT compiler's. */
    long armTotalCpuNs() {
        return sum(armCpuNs, armJitNs);
    }

    /** {@code ns} of CPU over {@code requests}, in µs; NaN when either is unknown or there were none. */
    static double perRequestUs(long ns, long requests) {
        return requests <= 0 || ns < 0 ? Double.NaN : ns / 1000.0 / requests;
    }

    /** {@code count} over {@code requests}; NaN when unknown or none. */
    static double perRequest(long count, long requests) {
        return requests <= 0 || count < 0 ? Double.NaN : (double) count / requests;
    }

    /** CPU {@code ns} over {@code wallNs} of wall clock: 1.0 is one core busy all the time. */
    static double cores(long ns, long wallNs) {
        return wallNs <= 0 || ns < 0 ? Double.NaN : (double) ns / wallNs;
    }

    /**
     * A counter's growth; -1 when either reading is unknown. A counter that went down (a process
     * restarted, Redis's stats reset) has no meaningful growth either.
     */
    private static long delta(long before, long after) {
        return before < 0 || after < 0 || after < before ? -1 : after - before;
    }

    private static long sum(long a, long b) {
        return a < 0 || b < 0 ? -1 : Math.addExact(a, b);
    }
}
