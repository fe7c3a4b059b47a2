#!/usr/bin/env python3
"""Measures the packaged gateway under Redis faults from outside (docs/operations.md, "Measured").
Starts a fake upstream (instant answers), a redis-server and the gateway jar on free ports; creates 20 free and
2 pro tenants through the admin API; runs 20 req/s (10 free, 10 pro): 30 s warm-up, 30 s control, Redis paused
30 s (SIGSTOP), 15 s after; then kills Redis, restarts it empty and times until a demo key works again.
Usage: python3 docs/measure-redis-faults.py <output dir> <gateway jar>. Stops everything it started."""
import json, os, signal, socket, subprocess, sys, threading, time, urllib.request, urllib.error, base64
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
JAR = sys.argv[2]

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
