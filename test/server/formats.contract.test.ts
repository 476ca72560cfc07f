// The wire-format contract, checked the same way for every route of every format on the list
// (src/server/formats/index.ts), through real HTTP on a live server: each route answers a
// well-formed request (a reward route with its reward written as a JSON float, `1.0`, so Python
// trainers build float tensors); a POST route refuses another content type with 415 naming the
// content-type header; and an invalid grade is flagged where the protocol can say so (never a silent
// 0 that looks like a graded reward). A new format, or a new route, fails this file until it has a
// case in CASES; the server refuses at start-up a format whose routes differ from its declaration.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS } from '../../dist/server/formats/index.js';
import { createServer } from '../../dist/server/index.js';
import { loadGrader } from '../../dist/index.js';
import { start, type Running } from './helpers.js';

let srv: Running;
// `g` scores 1 when the response is the item's label; without a label it cannot grade (invalid)
const G = { type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' };
// `lit` scores 1 when the response is "right" (for protocols that carry no label)
const LIT = { type: 'string_check', input: '{{sample.output_text}}', reference: 'right', operation: 'eq' };
// nemo-gym's verify reads the Responses-API object
const responseOf = (text: string) => ({ output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }] });

beforeAll(async () => {
  srv = await start({ g: G, lit: LIT }, { sandboxApi: {}, fallbackReward: 0 });
});
afterAll(async () => {
  await srv?.close();
});

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A request to a route: its body (POST) and query string. */
interface Req {
  body?: unknown;
  query?: string;
}

type Case =
  | { kind: 'get' }
  /** A route that does not grade one reward (validation, metrics, code runs …): a well-formed request answers 200. */
  | { kind: 'other'; ok: Req; check?: (r: Reply) => void }
  /**
   * A reward route: `ok` grades the response "right" against the label "right" (reward 1.0);
   * `reward` finds the reward's text in the reply; `invalid` cannot be graded and `flagged` says
   * whether the reply marks it invalid.
   */
  | { kind: 'reward'; ok: Req; reward: (r: Reply) => string; invalid: Req; flagged: (r: Reply) => boolean };

/** The raw text of the first number after `"key":` in a JSON text. */
const rawNumber = (text: string, key: string): string => new RegExp(`"${key}":\\[?(-?[0-9.eE+-]+)`).exec(text)?.[1] ?? `(no ${key})`;

const nemoVerify: Case = {
  kind: 'reward',
  ok: { body: { label: 'right', response: responseOf('right') }, query: 'grader=g' },
  reward: (r) => rawNumber(r.text, 'reward'),
  invalid: { body: { response: responseOf('right') }, query: 'grader=g' },
  flagged: (r) => r.json.arbiter_invalid === 1 && typeof r.json.arbiter_error?.kind === 'string',
};
const openaiRun: Case = {
  kind: 'reward',
  ok: { body: { grader: 'g', model_sample: 'right', item: { label: 'right' } } },
  reward: (r) => rawNumber(r.text, 'reward'),
  invalid: { body: { grader: 'g', model_sample: 'right', item: {} } },
  flagged: (r) => r.json.metadata.valid === false && Object.values(r.json.metadata.errors).some((v) => v === true),
};
const openaiValidate: Case = { kind: 'other', ok: { body: { grader: G } }, check: (r) => expect(r.json.grader).toEqual(G) };
const nemoSeed: Case = { kind: 'other', ok: { body: {} } };
const nemoAggregate: Case = {
  kind: 'other',
  ok: { body: { verify_responses: [{ reward: 1.0 }, { reward: 0.0 }] } },
  check: (r) => expect(r.json.agent_metrics['mean/reward']).toBe(0.5),
};

const CASES: Record<string, Case> = {
  'GET /healthz': { kind: 'get' },
  'GET /metrics': { kind: 'get' },
  'POST /v1/graders/run': openaiRun,
  'POST /v1/fine_tuning/alpha/graders/run': openaiRun,
  'POST /fine_tuning/alpha/graders/run': openaiRun,
  'POST /v1/graders/validate': openaiValidate,
  'POST /v1/fine_tuning/alpha/graders/validate': openaiValidate,
  'POST /fine_tuning/alpha/graders/validate': openaiValidate,
  'POST /get_reward': {
    kind: 'reward',
    ok: { body: { query: ['Q right'], prompts: ['Q '], labels: ['right'] }, query: 'grader=g' },
    reward: (r) => rawNumber(r.text, 'rewards'),
    invalid: { body: { query: ['Q right'], prompts: ['Q '] }, query: 'grader=g' },
    flagged: (r) => r.json.extra_logs.arbiter_invalid[0] === 1,
  },
  'POST /v1/score': {
    kind: 'reward',
    ok: { body: { grader: 'g', samples: [{ item: { label: 'right' }, sample: { output_text: 'right' } }] } },
    reward: (r) => rawNumber(r.text, 'score'),
    invalid: { body: { grader: 'g', samples: [{ item: {}, sample: { output_text: 'right' } }] } },
    flagged: (r) => r.json.results[0].valid === false && r.json.results[0].score === null,
  },
  'POST /reward': {
    kind: 'reward',
    ok: { body: { prompt: 'Q', response: 'right', label: 'right' }, query: 'grader=g' },
    reward: (r) => r.text,
    invalid: { body: { prompt: 'Q', response: 'right' }, query: 'grader=g' },
    flagged: (r) => r.headers.get('x-arbiter-valid') === 'false' && r.headers.get('x-arbiter-error-kind') !== null,
  },
  'POST /seed_session': nemoSeed,
  'POST /verify': nemoVerify,
  'POST /aggregate_metrics': nemoAggregate,
  'POST /ng-rollout/:rolloutId/seed_session': nemoSeed,
  'POST /ng-rollout/:rolloutId/verify': nemoVerify,
  'POST /ng-rollout/:rolloutId/aggregate_metrics': nemoAggregate,
  'POST /v1/advantages': {
    kind: 'other',
    ok: {
      body: {
        config: { estimator: 'grpo' },
        records: [
          { uid: 'a', score: 1 },
          { uid: 'a', score: 0 },
        ],
      },
    },
    check: (r) => expect(r.text).toMatch(/"advantage":-?[0-9]+\.[0-9]/),
  },
  'POST /v1/groups': {
    kind: 'reward',
    ok: { body: { grader: 'g', samples: [{ item: { label: 'right' }, sample: { output_text: 'right' } }] } },
    reward: (r) => rawNumber(r.text, 'score'),
    invalid: { body: { grader: 'g', samples: [{ item: {}, sample: { output_text: 'right' } }] } },
    flagged: (r) => JSON.stringify(r.json).includes('"valid":false'),
  },
  'GET /v1/ping': { kind: 'get' },
  'POST /run_code': {
    kind: 'other',
    ok: { body: { code: 'print(1)', language: 'python' } },
    check: (r) => expect(r.json.run_result.stdout).toBe('1\n'),
  },
  'POST /v1/score/evaluation': {
    kind: 'reward',
    ok: { body: { model: 'model', messages: ['<|im_start|>user\nsay right<|im_end|>\n<|im_start|>assistant\nright<|im_end|>'] }, query: 'grader=lit' },
    reward: (r) => rawNumber(r.text, 'scores'),
    // no label reaches this protocol, and a text without an assistant marker is not graded
    invalid: { body: { model: 'model', messages: ['right'] }, query: 'grader=lit' },
    flagged: (r) => r.json.arbiter_invalid[0] === 1 && r.headers.get('x-arbiter-invalid') === '1',
  },
};

async function call(method: string, path: string, req: Req = {}, contentType = 'application/json'): Promise<Reply> {
  const url = `${srv.url}${path.replace(':rolloutId', 'r1')}${req.query ? `?${req.query}` : ''}`;
  const res = await fetch(url, method === 'GET' ? {} : { method, headers: { 'content-type': contentType }, body: JSON.stringify(req.body ?? {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

describe('wire-format contract (every route of every format on the list)', () => {
  const routes = FORMATS.flatMap((f) => f.routes.map((r) => ({ format: f.name, key: `${r.method} ${r.path}`, method: r.method, path: r.path })));

  it('every route of every format has a contract case, and no case is for a route that is gone', () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter((r) => !(r.key in CASES)).map((r) => `${r.format}: ${r.key}`)).toEqual([]);
    expect(Object.keys(CASES).filter((k) => !routes.some((r) => r.key === k))).toEqual([]);
    expect(new Set(FORMATS.map((f) => f.name)).size).toBe(FORMATS.length);
  });

  it('every route is in the endpoint table of docs/server.md (rollout-prefixed ones by their prefix)', () => {
    const doc = readFileSync(new URL('../../docs/server.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('## Endpoints'), doc.indexOf('\n## ', doc.indexOf('## Endpoints') + 1));
    const undocumented = routes.filter((r) => !r.path.includes(':') && !table.includes(r.path)).map((r) => r.key);
    expect(undocumented).toEqual([]);
  });

  it('the server refuses at start-up a format that registers a route it does not declare', () => {
    const rogue = { name: 'rogue', summary: 'test only', routes: [], register: (app: any) => app.post('/rogue', async () => ({})) };
    (FORMATS as unknown as object[]).push(rogue);
    try {
      expect(() => createServer({ graders: { g: loadGrader(G) } })).toThrow('wire format "rogue": registers undeclared route(s) POST /rogue');
    } finally {
      (FORMATS as unknown as object[]).pop();
    }
  });

  for (const r of routes) {
    const c = CASES[r.key];
    if (!c) continue;
    describe(`${r.format}: ${r.key}`, () => {
      if (c.kind === 'get') {
        it('answers 200', async () => {
          expect((await call('GET', r.path)).status).toBe(200);
        });
        return;
      }

      it('refuses another content type with 415 naming the content-type header', async () => {
        const res = await call(r.method, r.path, c.ok, 'text/plain');
        expect(res.status).toBe(415);
        expect(res.json.error.code).toBe('unsupported_media_type');
        expect(res.json.error.message).toMatch(/content-type "text\/plain"/);
      });

      if (c.kind === 'other') {
        it('answers a well-formed request', async () => {
          const res = await call(r.method, r.path, c.ok);
          expect(res.status, res.text).toBe(200);
          c.check?.(res);
        });
        return;
      }

      it('answers a well-formed request with its reward as a JSON float (1.0)', async () => {
        const res = await call(r.method, r.path, c.ok);
        expect(res.status, res.text).toBe(200);
        expect(c.reward(res)).toBe('1.0');
      });

      it('flags an invalid grade in the reply (not a silent 0)', async () => {
        const res = await call(r.method, r.path, c.invalid);
        expect(res.status, res.text).toBe(200);
        expect(c.flagged(res), res.text).toBe(true);
      });
    });
  }
});
