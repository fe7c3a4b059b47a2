#!/usr/bin/env python3
"""Measures a SIGTERM of the packaged gateway from outside (README, "Reliability and security").
Starts a redis-server, a fake provider whose streams last about 6 s (a chunk every 0.5 s, usage at the end)
and the gateway jar on free ports; opens STREAMS streams on the pro demo key; sends SIGTERM to the gateway
1.5 s later; then checks that every stream ended with [DONE], how long the gateway took to exit, and how many
provider leases are left in Redis (the lease sorted sets, sluice:b:{...}:l).
Usage: python3 docs/measure-shutdown.py <output dir> <gateway jar> [streams]. Stops everything it started."""
import json, os, signal, socket, subprocess, sys, threading, time, urllib.request, urllib.error
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

OUT, JAR = sys.argv[1], sys.argv[2]
STREAMS = int(sys.argv[3]) if len(sys.argv) > 3 else 20
os.makedirs(OUT, exist_ok=True)

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

class Up(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        n = int(self.headers.get("content-length", 0)); self.rfile.read(n)
        self.send_response(200); self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked"); self.end_headers()
        def chunk(s):
            b = s.encode(); self.wfile.write(b"%x\r\n" % len(b) + b + b"\r\n"); self.wfile.flush()
        for i in range(12):
            chunk('data: {"choices":[{"index":0,"delta":{"content":"w%d "}}]}\n\n' % i); time.sleep(0.5)
        chunk('data: {"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":12,"total_tokens":20}}\n\n')
        chunk("data: [DONE]\n\n"); self.wfile.write(b"0\r\n\r\n"); self.wfile.flush()
    def log_message(self, *a): pass

up_port, redis_port, gw_port = free_port(), free_port(), free_port()
upstream = ThreadingHTTPServer(("127.0.0.1", up_port), Up)
threading.Thread(target=upstream.serve_forever, daemon=True).start()
redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                          "--dir", OUT], stdout=open(OUT + "/redis.log", "w"), stderr=subprocess.STDOUT)
def cli(*args):
    return subprocess.run(["redis-cli", "-p", str(redis_port), *args], capture_output=True, text=True).stdout.split()
for _ in range(100):
    if cli("ping") == ["PONG"]: break
    time.sleep(0.05)
env = dict(os.environ, SPRING_DATA_REDIS_URL=f"redis://127.0.0.1:{redis_port}", PORT=str(gw_port),
           SLUICE_PROVIDER_URL=f"http://127.0.0.1:{up_port}/v1", SLUICE_DEMO_TENANTS="true", SLUICE_ADMIN_PASSWORD="measure-pw")
gw = subprocess.Popen(["java", "-jar", JAR], env=env, stdout=open(OUT + "/gateway.log", "w"), stderr=subprocess.STDOUT)
BASE = f"http://127.0.0.1:{gw_port}"
BODY = json.dumps({"model": "gpt-4o-mini", "stream": True, "max_tokens": 64,
                   "messages": [{"role": "user", "content": "a page"}]}).encode()
try:
    for _ in range(600):
        try:
            with urllib.request.urlopen(BASE + "/actuator/health/readiness", timeout=2) as r:
                if r.status == 200: break
        except Exception: pass
        time.sleep(0.2)
    else:
        raise SystemExit("gateway did not start")
    results = []
    def stream():
        req = urllib.request.Request(BASE + "/v1/chat/completions", data=BODY, method="POST",
                                     headers={"Authorization": "Bearer sk-sluice-demo-pro", "content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                text = r.read().decode()
                results.append(("done" if "data: [DONE]" in text else "cut", r.status, text.count("data: ")))
        except urllib.error.HTTPError as e:
            results.append(("refused", e.code, 0))
        except Exception as e:
            results.append(("error", str(e)[:80], 0))
    threads = [threading.Thread(target=stream) for _ in range(STREAMS)]
    [t.start() for t in threads]
    time.sleep(1.5)
    leases_before = sum(int(cli("zcard", k)[0]) for k in cli("--scan", "--pattern", "sluice:b:*:l"))
    t_term = time.monotonic(); gw.send_signal(signal.SIGTERM)
    refused_new = None
    try:
        urllib.request.urlopen(urllib.request.Request(BASE + "/v1/chat/completions", data=BODY, method="POST",
                               headers={"Authorization": "Bearer sk-sluice-demo-pro", "content-type": "application/json"}), timeout=5)
        refused_new = "accepted"
    except Exception as e:
        refused_new = type(e).__name__ + ": " + str(e)[:60]
    [t.join() for t in threads]
    gw.wait(timeout=180); exited_s = round(time.monotonic() - t_term, 2)
    lease_keys = cli("--scan", "--pattern", "sluice:b:*:l")
    leases_after = sum(int(cli("zcard", k)[0]) for k in lease_keys)
    report = {"streams": STREAMS, "leases_in_redis_at_sigterm": leases_before,
              "outcomes": {o: sum(1 for r in results if r[0] == o) for o in sorted({r[0] for r in results})},
              "events_per_stream": sorted({r[2] for r in results}), "a_new_request_after_sigterm": refused_new,
              "gateway_exit_s_after_sigterm": exited_s, "exit_code": gw.returncode, "leases_left_in_redis": leases_after}
    print(json.dumps(report, indent=2))
    json.dump(report, open(OUT + "/report.json", "w"), indent=2)
finally:
    if gw.poll() is None: gw.kill()
    redis.kill(); upstream.shutdown()
