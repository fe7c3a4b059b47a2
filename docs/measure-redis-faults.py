#!/usr/bin/env python3
"""Measures the packaged gateway under Redis faults from outside (docs/operations.md, "Measured").
Starts a fake upstream (instant answers), a redis-server and the gateway jar on free ports; creates 20 free and
2 pro tenants through the admin API; runs 20 req/s (10 free, 10 pro): 30 s warm-up, 30 s control, Redis paused
30 s (SIGSTOP), 15 s after; then kills Redis, restarts it empty and times until a demo key works again.
Usage: python3 docs/measure-redis-faults.py <output dir> <gateway jar> [sequential]. Stops everything it started.
sequential: one request at a time instead (the next sent when the last is answered), alternating a free and a pro tenant:
20 s warm-up, 10 s control, Redis paused 20 s, 10 s after; reports each request's decision time (the upstream answers at
once, so the time to the answer is the gateway's) during the pause: max, p99 and the first 5 requests after SIGSTOP."""
import json, os, signal, socket, subprocess, sys, threading, time, urllib.request, urllib.error, base64
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
JAR = sys.argv[2]
SEQUENTIAL = len(sys.argv) > 3 and sys.argv[3] == "sequential"

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

ANSWER = json.dumps({"id": "c1", "object": "chat.completion", "model": "gpt-4o-mini",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 8, "completion_tokens": 1, "total_tokens": 9}}).encode()

class Up(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        n = int(self.headers.get("content-length", 0)); self.rfile.read(n)
        self.send_response(200); self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(ANSWER))); self.end_headers(); self.wfile.write(ANSWER)
    def log_message(self, *a): pass

up_port, redis_port, gw_port = free_port(), free_port(), free_port()
upstream = ThreadingHTTPServer(("127.0.0.1", up_port), Up)
threading.Thread(target=upstream.serve_forever, daemon=True).start()

def start_redis():
    p = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                          "--dir", OUT], stdout=open(OUT + "/redis.log", "a"), stderr=subprocess.STDOUT)
    for _ in range(100):
        try:
            if subprocess.run(["redis-cli", "-p", str(redis_port), "ping"], capture_output=True, timeout=2).stdout.strip() == b"PONG":
                return p
        except Exception: pass
        time.sleep(0.05)
    raise SystemExit("redis did not start")

redis = start_redis()
env = dict(os.environ, SPRING_DATA_REDIS_URL=f"redis://127.0.0.1:{redis_port}", PORT=str(gw_port),
           SLUICE_PROVIDER_URL=f"http://127.0.0.1:{up_port}/v1", SLUICE_DEMO_TENANTS="true",
           SLUICE_ADMIN_USER="ops", SLUICE_ADMIN_PASSWORD="measure-pw", SLUICE_STORE_REDIS_DOWN_REPLICAS="1")
gw = subprocess.Popen(["java", "-jar", JAR], env=env, stdout=open(OUT + "/gateway.log", "w"), stderr=subprocess.STDOUT)
BASE = f"http://127.0.0.1:{gw_port}"
AUTH = "Basic " + base64.b64encode(b"ops:measure-pw").decode()

def call(method, path, body=None, headers=None, timeout=30):
    req = urllib.request.Request(BASE + path, data=body, method=method, headers=headers or {})
    t = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode(), time.monotonic() - t
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), time.monotonic() - t
    except Exception as e:
        return -1, str(e), time.monotonic() - t

def sequential(keys, chat):
    """One request at a time, free and pro in turn, across a 20 s pause; the first 5 after SIGSTOP and the tail."""
    rows = []  # (t_start, tier, status, seconds, code)
    stop = threading.Event()
    def loop():
        i = 0
        while not stop.is_set():
            tier = "free" if i % 2 == 0 else "pro"
            key = keys[tier][(i // 2) % len(keys[tier])]
            t0 = time.monotonic()
            st, body, dt = call("POST", "/v1/chat/completions", chat, {"Authorization": "Bearer " + key, "content-type": "application/json"})
            code = ""
            if st != 200:
                try: code = json.loads(body)["error"]["code"]
                except Exception: code = body[:60]
            rows.append((t0, tier, st, dt, code))
            i += 1
    worker = threading.Thread(target=loop, daemon=True); worker.start()
    time.sleep(20)  # warm-up (not reported)
    control_at = time.monotonic(); time.sleep(10)
    pause_at = time.monotonic(); os.kill(redis.pid, signal.SIGSTOP)
    time.sleep(20)
    os.kill(redis.pid, signal.SIGCONT); resume_at = time.monotonic()
    time.sleep(10)
    stop.set(); worker.join(35)
    def ms(x): return round(x * 1000)
    def tail(v):
        v = sorted(v)
        return {"n": len(v), "within_1s": sum(1 for x in v if x <= 1.0), "p50_ms": ms(v[len(v) // 2]),
                "p99_ms": ms(v[min(len(v) - 1, int(0.99 * len(v)))]), "max_ms": ms(v[-1])} if v else {"n": 0}
    def by(rows):
        out = {}
        for _, tier, st, dt, code in rows: out.setdefault(f"{tier}/{st}/{code}", []).append(dt)
        return {k: tail(v) for k, v in sorted(out.items())}
    # A request sent before SIGSTOP but still waiting then met the stall too: it counts with the pause.
    during = [r for r in rows if r[0] + r[3] >= pause_at and r[0] < resume_at]
    report = {"mode": "sequential, one request at a time, free and pro alternating",
              "paused_20s": dict(tail([r[3] for r in during]), by_tier_status_code=by(during),
                                 first_5_after_pause=[{"tier": r[1], "status": r[2], "code": r[4], "ms": ms(r[3]),
                                                       "sent_ms_after_pause": ms(r[0] - pause_at)} for r in during[:5]]),
              "control_10s_redis_up": by([r for r in rows if control_at <= r[0] and r[0] + r[3] < pause_at]),
              "after_resume_10s": by([r for r in rows if r[0] >= resume_at])}
    print(json.dumps(report, indent=1))

try:
    for _ in range(600):
        if call("GET", "/actuator/health/readiness", timeout=2)[0] == 200: break
        time.sleep(0.2)
    else:
        raise SystemExit("gateway did not start")
    keys = {"free": [], "pro": []}
    for tier, n in (("free", 20), ("pro", 2)):
        for i in range(n):
            tid = f"m-{tier}-{i}"
            call("POST", "/admin/api/tenants", json.dumps({"id": tid, "tier": tier}).encode(),
                 {"Authorization": AUTH, "content-type": "application/json"})
            st, body, _ = call("POST", f"/admin/api/tenants/{tid}/keys", b"", {"Authorization": AUTH})
            keys[tier].append(json.loads(body)["key"])
    CHAT = json.dumps({"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}).encode()
    results = []  # (t_start, tier, status, seconds, code)
    lock = threading.Lock()
    def one(tier, key, t0):
        st, body, dt = call("POST", "/v1/chat/completions", CHAT, {"Authorization": "Bearer " + key, "content-type": "application/json"})
        code = ""
        if st != 200:
            try: code = json.loads(body)["error"]["code"]
            except Exception: code = body[:60]
        with lock: results.append((t0, tier, st, dt, code))
    health = []
    stop = threading.Event()
    def load():
        i = 0
        start = time.monotonic()
        while not stop.is_set():
            t = start + i * 0.05  # 20 req/s, alternating free and pro
            d = t - time.monotonic()
            if d > 0: time.sleep(d)
            tier = "free" if i % 2 == 0 else "pro"
            key = keys[tier][(i // 2) % len(keys[tier])]
            threading.Thread(target=one, args=(tier, key, time.monotonic()), daemon=True).start()
            i += 1
    def probe_health():
        while not stop.is_set():
            for path in ("/actuator/health", "/actuator/health/readiness"):
                st, body, dt = call("GET", path, timeout=30)
                health.append((time.monotonic(), path, st, dt, body[:80]))
            time.sleep(0.5)
    if SEQUENTIAL:
        sequential(keys, CHAT)
        raise SystemExit(0)
    threading.Thread(target=load, daemon=True).start()
    threading.Thread(target=probe_health, daemon=True).start()
    time.sleep(30)  # warm-up: JIT, connection pools (not reported)
    control_at = time.monotonic()
    time.sleep(30)  # control: the same load with Redis up
    pause_at = time.monotonic(); os.kill(redis.pid, signal.SIGSTOP)
    time.sleep(30)
    os.kill(redis.pid, signal.SIGCONT); resume_at = time.monotonic()
    time.sleep(15)
    stop.set(); time.sleep(3)

    def pct(v, q):
        v = sorted(v); return round(v[min(len(v) - 1, int(q * len(v)))] * 1000)
    def summary(rows):
        by = {}
        for t0, tier, st, dt, code in rows:
            k = (tier, st, code); by.setdefault(k, []).append(dt)
        return {f"{t}/{s}/{c}": {"n": len(v), "within_1s": sum(1 for x in v if x < 1.0), "p50_ms": pct(v, .5), "p95_ms": pct(v, .95), "max_ms": round(max(v) * 1000)}
                for (t, s, c), v in sorted(by.items())}
    during = [r for r in results if pause_at <= r[0] < resume_at]
    after = [r for r in results if r[0] >= resume_at]
    before = [r for r in results if control_at <= r[0] < pause_at]
    hd = [h for h in health if pause_at <= h[0] < resume_at]
    report = {"paused_30s": {"requests": len(during), "within_1s": sum(1 for r in during if r[3] < 1.0),
                             "max_ms": round(max(r[3] for r in during) * 1000), "by_tier_status_code": summary(during)},
              "control_30s_redis_up": summary(before), "after_resume_15s": summary(after),
              "health_during_pause": {"calls": len(hd), "max_ms": round(max(h[3] for h in hd) * 1000) if hd else None, "within_1s": sum(1 for h in hd if h[3] < 1.0),
                                      "statuses": sorted({(h[1], h[2]) for h in hd})}}
    # Kill and restart empty.
    redis.kill(); redis.wait()
    redis = start_redis(); t_restart = time.monotonic()
    demo_free = None; tiers_back = None
    while time.monotonic() - t_restart < 60:
        st, body, _ = call("POST", "/v1/chat/completions", CHAT, {"Authorization": "Bearer sk-sluice-demo-free", "content-type": "application/json"}, timeout=5)
        if tiers_back is None and subprocess.run(["redis-cli", "-p", str(redis_port), "hexists", "sluice:tiers", "version"], capture_output=True).stdout.strip() == b"1":
            tiers_back = round(time.monotonic() - t_restart, 2)
        if st == 200:
            demo_free = round(time.monotonic() - t_restart, 2); break
        time.sleep(0.1)
    st_admin_key, _, _ = call("POST", "/v1/chat/completions", CHAT, {"Authorization": "Bearer " + keys["pro"][0], "content-type": "application/json"})
    report["killed_restarted_empty"] = {"demo_free_served_after_s": demo_free, "tiers_document_back_after_s": tiers_back,
                                        "admin_created_pro_key_status_after": st_admin_key}
    print(json.dumps(report, indent=1))
finally:
    gw.terminate()
    try: gw.wait(20)
    except Exception: gw.kill()
    try: os.kill(redis.pid, signal.SIGCONT)
    except Exception: pass
    redis.kill(); upstream.shutdown()
