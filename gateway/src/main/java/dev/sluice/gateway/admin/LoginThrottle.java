package dev.sluice.gateway.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Slows guessing of the admin password: at most {@code perAddress} failed logins from one
 * client address and {@code perUser} for one user name within {@code window}; past either, every
 * attempt from that address or for that name is refused, right or wrong, until the oldest
 * failure leaves the window (the answer says when). Refusing a correct password too is what
 * makes a guess worthless while throttled.
 *
 * <p>A success clears its own address's failures only: the admin logging in from one place
 * does not wipe what attackers elsewhere have spent, nor the user name's count (which ages out
 * on its own, so an attacker can lock the name out for at most one window at a time).
 *
 * <p>Pure: time is an argument. Synchronized: logins are rare, so one lock costs nothing. The
 * number of keys held is bounded, so spraying names or addresses cannot grow memory without end.
 */
public final class LoginThrottle {
    static final int MAX_KEYS = 10_000;

    private final int perAddress;
    private final int perUser;
    private final Duration window;
    private final Map<String, Deque<Instant>> failures = new HashMap<>();

    public LoginThrottle(int perAddress, int perUser, Duration window) {
        if (perAddress < 1 || perUser < 1) throw new IllegalArgumentException("limits must be at least 1");
        if (window == null || window.isNegative() || window.isZero())
            throw new IllegalArgumentException("window must be positive");
        this.perAddress = perAddress;
        this.perUser = perUser;
        this.window = window;
    }

    /** How long until an attempt from {@code address} for {@code user} may be checked; empty when it may be now. */
    public synchronized Optional<Duration> refusedFor(String address, String user, Instant now) {
        Duration wait = max(waitFor(addressKey(address), perAddress, now), waitFor(userKey(user), perUser, now));
        return wait.isZero() ? Optional.empty() : Optional.of(wait);
    }

    public synchronized void failed(String address, String user, Instant now) {
        record(addressKey(address), perAddress, now);
        record(userKey(user), perUser, now);
    }

    public synchronized void succeeded(String address) {
        failures.remove(addressKey(address));
    }

    synchronized int keys() {
        return failures.size();
    }

    private Duration waitFor(String key, int limit, Instant now) {
        Deque<Instant> times = failures.get(key);
        if (times == null) return Duration.ZERO;
        expire(times, now);
        if (times.isEmpty()) {
            failures.remove(key);
            return Duration.ZERO;
        }
        if (times.size() < limit) return Duration.ZERO;
        return Duration.between(now, times.peekFirst().plus(window));
    }

    private void record(String key, int limit, Instant now) {
        if (!failures.containsKey(key) && failures.size() >= MAX_KEYS) evict(now);
        Deque<Instant> times = failures.computeIfAbsent(key, k -> new ArrayDeque<>());
        expire(times, now);
        times.addLast(now);
        while (times.size() > limit) times.removeFirst(); // only the last `limit` decide when the next is allowed
    }

    private void expire(Deque<Instant> times, Instant now) {
        while (!times.isEmpty() && !times.peekFirst().plus(window).isAfter(now)) times.removeFirst();
    }

    /** Drops expired keys; if none had expired, the one whose newest failure is oldest. */
    private void evict(Instant now) {
        String oldest = null;
        Instant oldestAt = null;
        for (Iterator<Map.Entry<String, Deque<Instant>>> it =
                        failures.entrySet().iterator();
                it.hasNext(); ) {
            Map.Entry<String, Deque<Instant>> e = it.next();
            expire(e.getValue(), now);
            if (e.getValue().isEmpty()) {
                it.remove();
            } else if (oldestAt == null || e.getValue().peekLast().isBefore(oldestAt)) {
                oldest = e.getKey();
                oldestAt = e.getValue().peekLast();
            }
        }
        if (failures.size() >= MAX_KEYS && oldest != null) failures.remove(oldest);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static String addressKey(String address) {
        return "a:" + address;
    }

    private static String userKey(String user) {
        return "u:" + user;
    }
}
