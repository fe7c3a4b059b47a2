#!/usr/bin/env node
// An OpenAI-compatible provider, independent of Sluice's own simulator: written from OpenAI's
// documented behaviour (chat completions, streaming with include_usage, rate-limit headers and
// 429/503 bodies), with its own way of counting tokens (characters / N × a factor), so that the
// gateway is judged against a count it does not share. Node 20, no dependencies.
//
//   node provider.mjs --port=0 --rpm=1500 --tpm=300000 --in-flight=200 --latency-ms=2000
// Prints its port on the first line of stdout once listening. Every flag also reads from the
// environment as PROVIDER_<FLAG> (e.g. PROVIDER_TPM=300000); a flag wins. See docs/judged-run.md.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

const DEFAULTS = {
  port: 0,
  host: '127.0.0.1',
  rpm: 1500,
  tpm: 300000,
  'in-flight': 200,
  'latency-ms': 2000,
  jitter: 0.1, // each call takes latency × (1 ± jitter), uniformly
  'chars-per-token': 4,
  'count-factor': 1, // prompt tokens = ceil(characters / chars-per-token × count-factor) + overheads
  'message-overhead': 0, // tokens added per message (OpenAI's chat format adds about 3)
  'reply-overhead': 0, // tokens added once per request (OpenAI primes every reply with about 3)
  'completion-ratio': 1, // the answer's length as a share of max_tokens
  'completion-tokens': 200, // the answer's length when the request sets no max_tokens
  'default-max-tokens': 4096, // reserved at arrival when the request sets no max_tokens
  'window-ms': 60000,
  'clock-offset-ms': 0, // how far this provider's clock is ahead of the caller's
  'ingress-latency-ms': 0, // the request travels this long before the provider counts it
  'extra-latency-ms': 0, // the answer travels this long after the provider settled it
  'retry-after-503-s': 1,
  'keep-alive-ms': 120000, // an idle keep-alive connection is closed after this
  'processing-ms-header': 1, // 0: answers carry no openai-processing-ms (many OpenAI-compatible servers send none)
  'exit-with-stdin': 0, // 1: exit when stdin closes, so a parent that dies (killed, not stopped) takes it along
  seed: 42,
  'api-key': '', // when set, calls must carry it as a Bearer token
};

export function parseOptions(argv = process.argv.slice(2), env = process.env) {
  const o = { ...DEFAULTS };
  for (const name of Object.keys(DEFAULTS)) {
    const v = env['PROVIDER_' + name.toUpperCase().replaceAll('-', '_')];
    if (v !== undefined && v !== '') o[name] = v;
  }
  for (const arg of argv) {
    const m = /^--([a-z0-9-]+)=(.*)$/.exec(arg);
    if (!m || !(m[1] in DEFAULTS)) throw new Error(`unknown option ${arg}; known: ${Object.keys(DEFAULTS).map((k) => '--' + k).join(' ')}`);
    o[m[1]] = m[2];
  }
  for (const [k, d] of Object.entries(DEFAULTS)) {
    if (typeof d !== 'number') continue;
    const n = Number(o[k]);
    if (!Number.isFinite(n)) throw new Error(`--${k} must be a number, was ${o[k]}`);
    o[k] = n;
  }
  for (const k of ['rpm', 'tpm', 'in-flight', 'chars-per-token', 'count-factor', 'window-ms']) {
    if (!(o[k] > 0)) throw new Error(`--${k} must be positive, was ${o[k]}`);
  }
  if (!(o.jitter >= 0 && o.jitter < 1)) throw new Error(`--jitter must be in [0, 1), was ${o.jitter}`);
  if (!(o['completion-ratio'] >= 0 && o['completion-ratio'] <= 1)) throw new Error('--completion-ratio must be in [0, 1]');
  return o;
}

// ---- time and formats -----------------------------------------------------------------------

/** OpenAI writes rate-limit resets as Go durations: 12ms, 1.2s, 6m0s, 1h0m0s. */
export function goDuration(ms) {
  ms = Math.max(0, Math.ceil(ms));
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3600000);
  const m = Math.floor((ms % 3600000) / 60000);
  const s = ((ms % 60000) / 1000).toFixed(3).replace(/\.?0+$/, '');
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** Mulberry32: a seeded generator, so a run's latencies repeat. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- counting -------------------------------------------------------------------------------

function messageText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

/** This provider's own count: characters of every message's text / N × a factor, plus overheads. */
export function promptTokens(messages, o) {
  let chars = 0;
  for (const m of messages) chars += messageText(m.content).length + (typeof m.name === 'string' ? m.name.length : 0);
  return Math.ceil((chars / o['chars-per-token']) * o['count-factor']) + o['message-overhead'] * messages.length + o['reply-overhead'];
}

// ---- the provider ---------------------------------------------------------------------------

export function createProvider(o) {
  const rand = random(o.seed);
  const window = o['window-ms'];
  let state;

  function reset() {
    state = {
      epoch: (state?.epoch ?? 0) + 1,
      startedAt: now(),
      log: [], // calls admitted, oldest first: {t, tokens, alive}; exact sliding window
      head: 0,
      windowTokens: 0,
      windowRequests: 0,
      calls: [], // every call admitted, for the busiest minute: {t, tokens}
      inFlight: 0,
      s: {
        received: 0, answered: 0, cancelled: 0, rejected429: 0, rejected429Tokens: 0, rejected429Requests: 0,
        rejected503: 0, rejected4xx: 0, promptTokens: 0, completionTokens: 0, maxInFlight: 0,
        maxWindowTokens: 0, maxWindowRequests: 0, first429AtMs: null, first503AtMs: null,
      },
      perSecond: [],
    };
  }

  /** The provider's clock: monotonic, shifted by the configured offset (its window and its stated times). */
  function now() {
    return performance.timeOrigin + performance.now() + o['clock-offset-ms'];
  }

  function second(t) {
    const i = Math.max(0, Math.floor((t - state.startedAt) / 1000));
    while (state.perSecond.length <= i) state.perSecond.push({ tokens: 0, requests: 0, trailingTokens: 0, inFlight: 0, r429: 0, r503: 0 });
    return state.perSecond[i];
  }

  function expire(t) {
    const log = state.log;
    while (state.head < log.length && log[state.head].t + window <= t) {
      const e = log[state.head++];
      e.alive = false;
      state.windowTokens -= e.tokens;
      state.windowRequests -= 1;
    }
    if (state.head > 4096 && state.head * 2 > log.length) {
      state.log = log.slice(state.head);
      state.head = 0;
    }
  }

  /** Milliseconds until the window holds {@code need} more tokens and one more request. */
  function waitFor(need, t) {
    let tokens = state.windowTokens;
    let requests = state.windowRequests;
    if (tokens + need <= o.tpm && requests + 1 <= o.rpm) return 0;
    for (let i = state.head; i < state.log.length; i++) {
      const e = state.log[i];
      tokens -= e.tokens;
      requests -= 1;
      if (tokens + need <= o.tpm && requests + 1 <= o.rpm) return e.t + window - t;
    }
    return window;
  }

  function rateHeaders(t) {
    // OpenAI: "the time until the rate limit resets to its initial state", i.e. until the newest charge leaves.
    const empty = state.log.length > state.head ? state.log[state.log.length - 1].t + window - t : 0;
    return {
      'x-ratelimit-limit-requests': String(o.rpm),
      'x-ratelimit-limit-tokens': String(o.tpm),
      'x-ratelimit-remaining-requests': String(Math.max(0, o.rpm - state.windowRequests)),
      'x-ratelimit-remaining-tokens': String(Math.max(0, o.tpm - state.windowTokens)),
      'x-ratelimit-reset-requests': goDuration(empty),
      'x-ratelimit-reset-tokens': goDuration(empty),
    };
  }

  function record(t) {
    state.s.maxWindowTokens = Math.max(state.s.maxWindowTokens, state.windowTokens);
    state.s.maxWindowRequests = Math.max(state.s.maxWindowRequests, state.windowRequests);
    const sec = second(t);
    sec.trailingTokens = Math.max(sec.trailingTokens, state.windowTokens);
    sec.inFlight = Math.max(sec.inFlight, state.inFlight);
  }

  /**
   * Admission, at the moment the provider can count the call: 429 when the minute's requests or
   * tokens (this call's prompt + max_tokens included) would pass the limit, 503 when the calls in
   * flight are full; otherwise the call is charged its reservation and counted as in flight.
   */
  function admit(prompt, reserve) {
    const t = now();
    expire(t);
    const sec = second(t);
    if (state.windowRequests + 1 > o.rpm || state.windowTokens + prompt + reserve > o.tpm) {
      const onTokens = state.windowRequests + 1 <= o.rpm;
      state.s.rejected429++;
      onTokens ? state.s.rejected429Tokens++ : state.s.rejected429Requests++;
      state.s.first429AtMs ??= Math.round(t - state.startedAt);
      sec.r429++;
      return { status: 429, onTokens, wait: waitFor(prompt + reserve, t), t };
    }
    if (state.inFlight >= o['in-flight']) {
      state.s.rejected503++;
      state.s.first503AtMs ??= Math.round(t - state.startedAt);
      sec.r503++;
      return { status: 503, t };
    }
    const entry = { t, tokens: prompt + reserve, alive: true, epoch: state.epoch };
    state.log.push(entry);
    state.windowTokens += entry.tokens;
    state.windowRequests += 1;
    state.inFlight++;
    state.s.maxInFlight = Math.max(state.s.maxInFlight, state.inFlight);
    record(t);
    return { status: 200, entry, t };
  }

  /** The call ended (answered or abandoned): its charge becomes what was really counted. */
  function settle(entry, prompt, completion) {
    if (entry.epoch !== state.epoch || entry.settled) return;
    entry.settled = true;
    const counted = prompt + completion;
    if (entry.alive) state.windowTokens += counted - entry.tokens;
    entry.tokens = counted;
    state.inFlight--;
    state.s.promptTokens += prompt;
    state.s.completionTokens += completion;
    state.calls.push({ t: entry.t, tokens: counted });
    const sec = second(entry.t);
    sec.tokens += counted;
    sec.requests += 1;
  }

  /** The busiest 60 s of counted tokens (and of requests), from every settled call's arrival time. */
  function busiest() {
    const calls = [...state.calls].sort((a, b) => a.t - b.t);
    let best = { tokens: 0, requests: 0, fromMs: 0 };
    let bestRequests = 0;
    let lo = 0;
    let sum = 0;
    for (let hi = 0; hi < calls.length; hi++) {
      sum += calls[hi].tokens;
      while (calls[lo].t + window <= calls[hi].t) sum -= calls[lo++].tokens;
      if (sum > best.tokens) best = { tokens: sum, requests: hi - lo + 1, fromMs: Math.round(calls[lo].t - state.startedAt) };
      bestRequests = Math.max(bestRequests, hi - lo + 1);
    }
    return { ...best, maxRequests: bestRequests };
  }

  function stats() {
    const b = busiest();
    const s = state.s;
    return {
      ...s,
      totalTokens: s.promptTokens + s.completionTokens,
      inFlight: state.inFlight,
      busiest60sTokens: b.tokens,
      busiest60sRequests: b.maxRequests,
      busiest60sFromMs: b.fromMs,
      limits: { rpm: o.rpm, tpm: o.tpm, inFlight: o['in-flight'], windowMs: window },
      counting: {
        charsPerToken: o['chars-per-token'], countFactor: o['count-factor'], messageOverhead: o['message-overhead'],
        replyOverhead: o['reply-overhead'], completionRatio: o['completion-ratio'],
      },
      clockOffsetMs: o['clock-offset-ms'],
      ingressLatencyMs: o['ingress-latency-ms'],
      extraLatencyMs: o['extra-latency-ms'],
      perSecond: state.perSecond,
    };
  }

  reset();
  return {
    admit, settle, stats, reset, rateHeaders, now, rand, o,
    received: () => state.s.received++,
    answered: () => state.s.answered++,
    badRequest: () => state.s.rejected4xx++,
    cancelled: () => state.s.cancelled++,
  };
}

// ---- HTTP -----------------------------------------------------------------------------------

function error(res, status, message, type, code, param = null, headers = {}) {
  send(res, status, { error: { message, type, param, code } }, headers);
}

function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Checks what OpenAI checks before counting: a JSON object with a model and a list of messages. */
function validate(body) {
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    return { problem: ['We could not parse the JSON body of your request.', null] };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { problem: ['The request body must be a JSON object.', null] };
  if (typeof json.model !== 'string' || !json.model) return { problem: ["you must provide a model parameter", 'model'] };
  if (!Array.isArray(json.messages) || json.messages.length === 0) return { problem: ["'messages' must be a non-empty array", 'messages'] };
  for (const [name, v] of [['max_tokens', json.max_tokens], ['max_completion_tokens', json.max_completion_tokens]]) {
    if (v !== undefined && v !== null && !(Number.isInteger(v) && v >= 1)) return { problem: [`Invalid '${name}': must be an integer of 1 or more.`, name] };
  }
  const n = json.n ?? 1;
  if (!(Number.isInteger(n) && n >= 1 && n <= 128)) return { problem: ["Invalid 'n': must be an integer from 1 to 128.", 'n'] };
  return { json };
}

function words(count) {
  return 'lorem '.repeat(count).trimEnd();
}

async function chat(p, req, res) {
  const o = p.o;
  const { json, problem } = validate(await readBody(req));
  if (problem) {
    p.badRequest();
    return error(res, 400, problem[0], 'invalid_request_error', null, problem[1]);
  }
  p.received();
  const n = json.n ?? 1;
  const cap = json.max_completion_tokens ?? json.max_tokens ?? null;
  const prompt = promptTokens(json.messages, o);
  const reserve = (cap ?? o['default-max-tokens']) * n;
  const perChoice = cap === null ? Math.min(o['completion-tokens'], o['default-max-tokens']) : Math.max(1, Math.round(cap * o['completion-ratio']));
  const completion = perChoice * n;

  // The caller gone before the end (req.destroyed says nothing: a read request is destroyed once consumed).
  let gone = false;
  let onGone = () => {};
  res.on('close', () => {
    if (res.writableFinished) return;
    gone = true;
    onGone();
  });
  await sleep(o['ingress-latency-ms']); // still on the wire: the provider has not seen it yet
  if (gone) return;
  const a = p.admit(prompt, reserve);
  const headers = p.rateHeaders(a.t);
  if (a.status === 429) {
    const what = a.onTokens ? 'tokens per min (TPM)' : 'requests per min (RPM)';
    const limit = a.onTokens ? o.tpm : o.rpm;
    const wait = a.wait;
    const message = prompt + reserve > o.tpm && a.onTokens
      ? `Request too large for ${json.model} on ${what}: Limit ${limit}, Requested ${prompt + reserve}. The input or output tokens must be reduced in order to run successfully.`
      : `Rate limit reached for ${json.model} on ${what}: Limit ${limit}, Requested ${a.onTokens ? prompt + reserve : 1}. Please try again in ${goDuration(wait)}.`;
    return error(res, 429, message, a.onTokens ? 'tokens' : 'requests', 'rate_limit_exceeded', null, {
      ...headers,
      'retry-after': String(Math.max(1, Math.ceil(wait / 1000))),
      'retry-after-ms': String(Math.max(0, Math.ceil(wait))),
    });
  }
  if (a.status === 503) {
    return error(res, 503, 'The engine is currently overloaded, please try again later.', 'server_error', null, null,
      { 'retry-after': String(o['retry-after-503-s']) });
  }

  const latency = o['latency-ms'] * (1 + o.jitter * (2 * p.rand() - 1));
  const id = 'chatcmpl-' + randomUUID().replaceAll('-', '').slice(0, 24);
  const created = Math.floor(p.now() / 1000);
  const model = json.model;
  const stream = json.stream === true;
  const includeUsage = stream && json.stream_options?.include_usage === true;
  const started = performance.now();
  let sentTokens = 0; // a stream's output handed to the socket so far: what an abandoned call is billed for
  let done = false;
  const finish = (tokens) => {
    if (done) return;
    done = true;
    p.settle(a.entry, prompt, tokens);
  };
  onGone = () => { // abandoned: billed for what was produced so far
    if (!done) p.cancelled();
    finish(stream ? sentTokens : 0);
  };
  if (gone) return onGone();
  const usage = () => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
  const common = { 'x-request-id': 'req_' + randomUUID().replaceAll('-', ''), 'openai-model': model, ...headers };

  if (!stream) {
    await sleep(latency);
    if (gone) return;
    finish(completion); // the provider is done with it: settled and out of flight before the answer travels
    p.answered();
    await sleep(o['extra-latency-ms']);
    if (gone) return;
    return send(res, 200, {
      id, object: 'chat.completion', created, model, system_fingerprint: 'fp_independent',
      choices: Array.from({ length: n }, (_, index) => ({
        index, message: { role: 'assistant', content: words(perChoice), refusal: null }, logprobs: null, finish_reason: cap !== null && o['completion-ratio'] === 1 ? 'length' : 'stop',
      })),
      usage: usage(),
    }, { ...common, ...(o['processing-ms-header'] ? { 'openai-processing-ms': String(Math.round(performance.now() - started)) } : {}) });
  }

  // SSE: chunks spread over the call's latency, each shifted by the answer's extra travel time.
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...common });
  const chunk = (choices, extra = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_independent', choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
  const pieces = Math.max(1, Math.min(perChoice, 10));
  const choices = (f) => Array.from({ length: n }, (_, index) => ({ index, ...f(index), logprobs: null }));
  const events = []; // [when the model produces it (ms after start), text], in order
  let at = latency * 0.2;
  events.push([at, chunk(choices(() => ({ delta: { role: 'assistant', content: '', refusal: null }, finish_reason: null })))]);
  for (let i = 0; i < pieces; i++) {
    at += (latency * 0.8) / pieces;
    const from = Math.floor((perChoice * i) / pieces);
    const to = Math.floor((perChoice * (i + 1)) / pieces);
    // Counted when produced (the travel time after it is the network's, not the model's).
    setTimeout(() => { if (!done) sentTokens = to * n; }, at);
    events.push([at, chunk(choices(() => ({ delta: { content: (from > 0 ? ' ' : '') + words(to - from) }, finish_reason: null })))]);
  }
  setTimeout(() => {
    if (gone) return;
    finish(completion);
    p.answered();
  }, at);
  events.push([at, chunk(choices(() => ({ delta: {}, finish_reason: 'stop' })))]);
  if (includeUsage) events.push([at, `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_independent', choices: [], usage: usage() })}\n\n`]);
  events.push([at, 'data: [DONE]\n\n']);
  // One writer, in order: timers due at the same millisecond need not fire in the order they were set.
  for (const [when, text] of events) {
    await sleep(when + o['extra-latency-ms'] - (performance.now() - started));
    if (gone) return;
    res.write(text);
  }
  if (!gone) res.end();
}

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1', 'gpt-4.1-mini'];

export function startServer(o) {
  const p = createProvider(o);
  const stats = p.stats;

  const server = http.createServer(async (req, res) => {
    try {
      res.setHeader('date', new Date(p.now()).toUTCString()); // the time it states is its own clock's
      const url = new URL(req.url, 'http://x');
      const path = url.pathname.replace(/\/+$/, '');
      if (path === '/stats' && req.method === 'GET') return send(res, 200, stats());
      if (path === '/reset' && req.method === 'POST') {
        await readBody(req);
        p.reset();
        return send(res, 200, { reset: true });
      }
      if (path.startsWith('/v1/') && o['api-key'] && req.headers.authorization !== `Bearer ${o['api-key']}`) {
        await readBody(req);
        return error(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
      }
      if (path === '/v1/chat/completions' && req.method === 'POST') return await chat(p, req, res);
      if (path === '/v1/models' && req.method === 'GET') {
        return send(res, 200, { object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: 1715367049, owned_by: 'independent' })) });
      }
      const model = /^\/v1\/models\/([^/]+)$/.exec(path);
      if (model && req.method === 'GET') {
        if (MODELS.includes(model[1])) return send(res, 200, { id: model[1], object: 'model', created: 1715367049, owned_by: 'independent' });
        return error(res, 404, `The model '${model[1]}' does not exist`, 'invalid_request_error', 'model_not_found', 'model');
      }
      await readBody(req);
      return error(res, 404, `Invalid URL (${req.method} ${url.pathname})`, 'invalid_request_error', null);
    } catch (e) {
      if (!res.headersSent) error(res, 500, 'The server had an error while processing your request.', 'server_error', null);
      else res.destroy();
      console.error(e);
    }
  });
  // An idle connection is closed after this, as every server does at some point: a client's pool must not
  // send on a connection older than the server keeps (a real provider's timeout is unknown to the client).
  server.keepAliveTimeout = o['keep-alive-ms'];
  server.headersTimeout = o['keep-alive-ms'] + 5_000;
  server.requestTimeout = 0;
  return new Promise((resolve) => server.listen(o.port, o.host, () => resolve({ server, provider: p, port: server.address().port })));
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('provider.mjs')) {
  let options;
  try {
    options = parseOptions();
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
  const { server, port } = await startServer(options);
  process.stdout.write(`${port}\n`);
  const stop = () => server.close(() => process.exit(0)) && server.closeAllConnections();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (options['exit-with-stdin']) {
    process.stdin.on('end', stop);
    process.stdin.on('error', stop);
    process.stdin.resume();
  }
}
