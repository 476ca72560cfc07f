// The fast lane's own cost, in-process: drives the server's request listener (fast-lane.ts in front
// of fastify) with event-emitter stand-ins for node's request and response, so no socket, no HTTP
// parser and no load generator is measured, only arbiter's JavaScript per request (parse, route,
// grade, serialise, metrics, the reply batch). A low-noise loop for changes worth a few
// microseconds, which over HTTP on a shared 2-core machine need several runs to see
// (bench/server.mjs is the benchmark of record: it measures against a bare node server).
// Requests are sent `--concurrency` at a time (as 16 connections would) and a round's cost is
// its wall time over its requests; the median round per endpoint is printed, in µs per request.
// `--before DIR` (DIR another build's dist/, under node_modules/.cache/ so its imports resolve) adds
// that build's server, its rounds interleaved with this build's, and prints now/before per endpoint.
// The two builds then share this process's heap and its npm modules, so each can slow the other:
// for a figure to quote, also run each build alone. Run it under the serve flags, as `arbiter
// serve` runs:
//   node --max-semi-space-size=64 bench/lane.mjs [--requests 20000] [--rounds 7] [--concurrency 16]
//        [--endpoint /get_reward|/v1/score] [--before DIR] [--json]
// (run `npm run build` first)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const str = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const num = (name, dflt) => Number(str(name, dflt));
const REQUESTS = num('requests', 20000);
const ROUNDS = num('rounds', 7);
const CONCURRENCY = num('concurrency', 16);
const ONLY = str('endpoint', undefined);
const JSON_OUT = argv.includes('--json');
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

const BEFORE = str('before', undefined);
// the grader and request bodies of bench/server.mjs
const GRADER = { type: 'string_check', name: 'answer_check', input: '{{sample.output_text}}$$', reference: 'A: {{item.label}}$$', operation: 'like' };

/** The server of the build in `dist` (a URL ending in /) and its one request listener. */
async function start(dist) {
  const { loadGrader } = await import(`${dist}index.js`);
  const { createServer } = await import(`${dist}server/index.js`);
  const server = createServer({ graders: { answer_check: loadGrader(GRADER) }, maxQueue: 200_000, maxBatch: 100_000 });
  await server.app.ready();
  const listeners = server.app.server.listeners('request');
  if (listeners.length !== 1) throw new Error(`expected one request listener, found ${listeners.length}`);
  return { server, listener: listeners[0] };
}
const builds = { now: await start(new URL('../dist/', import.meta.url).href) };
if (BEFORE) builds.before = await start(pathToFileURL(`${resolve(BEFORE)}/`).href);

const rows = readFileSync(here('../../shared/data/gsm8k/example_model_solutions.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .slice(0, 256)
  .map((l) => JSON.parse(l));
const data = rows.map((r) => ({
  question: r.question,
  label: String(/A: (.*)$/.exec(r.ground_truth.trim())?.[1]).trim(),
  solution: r['6b_finetuning'].solution,
}));
const chatml = (q) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;
const BODIES = {
  '/get_reward': data.map((d) =>
    Buffer.from(JSON.stringify({ query: [chatml(d.question) + d.solution + '<|im_end|>'], prompts: [chatml(d.question)], labels: [d.label] })),
  ),
  '/v1/score': data.map((d, i) => Buffer.from(JSON.stringify({ samples: [{ id: i, item: { label: d.label }, sample: { output_text: d.solution } }] }))),
};

/** A request as the lane reads it: method, url, headers, then its body as 'data' and 'end'. */
class FakeRequest extends EventEmitter {
  constructor(url, body) {
    super();
    this.method = 'POST';
    this.url = url;
    this.headers = { 'content-type': 'application/json', 'content-length': String(body.length), host: '127.0.0.1' };
  }
}

/** A response as the lane writes it: writeHead, end (then 'close'). */
class FakeResponse extends EventEmitter {
  constructor(done) {
    super();
    this.done = done;
    this.destroyed = false;
    this.headersSent = false;
    this.writableFinished = false;
    this.status = 0;
  }
  writeHead(status) {
    this.status = status;
    this.headersSent = true;
    return this;
  }
  end(body) {
    this.writableFinished = true;
    this.body = body;
    this.bytes = Buffer.from(body); // node's write encodes the reply to UTF-8: that cost is the lane's (a two-byte string costs more)
    this.emit('close');
    this.done(this);
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
    this.done(this);
  }
}

/** Sends `n` requests to `url` of `listener`, `CONCURRENCY` in flight; resolves with the elapsed ms. */
function round(listener, url, n) {
  const bodies = BODIES[url];
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = 0;
    const t0 = performance.now();
    const send = () => {
      const body = bodies[sent++ % bodies.length];
      const req = new FakeRequest(url, body);
      const res = new FakeResponse(onDone);
      listener(req, res);
      req.emit('data', body);
      req.emit('end');
    };
    function onDone(res) {
      if (res.status !== 200) reject(new Error(`${url}: status ${res.status}: ${res.body}`));
      if (++answered === n) resolve(performance.now() - t0);
      else if (sent < n) send();
    }
    for (let i = 0; i < CONCURRENCY && sent < n; i++) send();
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fix = (x) => Number(x.toFixed(2));
/** @type {Record<string, unknown>} */
const out = {};
for (const url of Object.keys(BODIES).filter((u) => !ONLY || u === ONLY)) {
  const us = {};
  for (const [name, b] of Object.entries(builds)) {
    await round(b.listener, url, Math.min(REQUESTS, 5000)); // warm-up: compiled code, the young generation sized
    us[name] = [];
  }
  // rounds interleaved (now, before, now, ...): both builds see the same machine
  for (let r = 0; r < ROUNDS; r++) for (const [name, b] of Object.entries(builds)) us[name].push(((await round(b.listener, url, REQUESTS)) * 1000) / REQUESTS);
  /** @type {Record<string, unknown>} */
  const e = {};
  out[url] = e;
  for (const [name, xs] of Object.entries(us)) {
    e[name] = { us_per_request: fix(median(xs)), min: fix(Math.min(...xs)), rounds: xs.map(fix) };
    if (!JSON_OUT)
      console.log(
        `${url.padEnd(12)} ${name.padEnd(6)} ${median(xs).toFixed(2)} µs/request (median of ${ROUNDS}, min ${Math.min(...xs).toFixed(2)}; rounds ${xs.map((x) => x.toFixed(1)).join(' ')})`,
      );
  }
  if (us.before) {
    // the ratio of each round to its neighbour of the other build, then the median: what the change bought
    const ratios = us.now.map((x, i) => us.before[i] / x);
    e.now_over_before = fix(median(ratios));
    if (!JSON_OUT) console.log(`${url.padEnd(12)} speed now/before ${median(ratios).toFixed(2)} (median of the rounds' ratios)`);
  }
}
if (JSON_OUT) console.log(JSON.stringify({ node_flags: process.execArgv, concurrency: CONCURRENCY, requests: REQUESTS, endpoints: out }));
for (const b of Object.values(builds)) await b.server.close();
