// Every `arbiter worker` option (and `serve --queue-prefix`) that no other test passes on the command
// line, shown to take effect against a run without it: real redis-server, real worker and server
// processes, a judge on a local OpenAI-compatible server that holds requests so a job is provably
// mid-grade when its worker is SIGKILLed. Each step waits for an event, never for time.
import { Redis } from 'ioredis';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../helpers/openai-test-server.js';
import { serve, type ServeProcess } from '../server/serve-process.js';
import { freePort, Gate, graderFiles, judgeConfig, postJSON, type RedisProc, startRedis, startWorker, type WorkerProc } from './procs.js';

const gate = new Gate();
const judgeServer = new TestServer({ chat: gate.handler });
let redis: RedisProc;
let files: Record<string, string>;
const workers = new Set<WorkerProc>();
const servers = new Set<ServeProcess>();
const FAST = ['--lock-ms', '1500', '--stalled-ms', '300', '--heartbeat-ms', '200'];

async function worker(args: string[]): Promise<WorkerProc> {
  const w = await startWorker(redis.url, args);
  workers.add(w);
  return w;
}

const samples = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `q${i}`, item: { label: `a${i}` }, sample: { output_text: `a${i}` } }));

beforeAll(async () => {
  await judgeServer.start();
  redis = await startRedis();
  const judge = judgeConfig(judgeServer.url);
  const closed = await freePort(); // nothing listens there
  files = graderFiles({
    judge,
    unreachable: { ...judge, name: 'unreachable', base_url: `http://127.0.0.1:${closed}/v1` },
    cheap: { type: 'string_check', name: 'cheap', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' },
  });
}, 60_000);

afterAll(async () => {
  gate.release();
  await Promise.all([...servers].map((s) => s.stop('SIGKILL')));
  await Promise.all([...workers].map((w) => w.kill('SIGKILL')));
  await redis?.stop();
  await judgeServer.close();
});

describe('arbiter worker options take effect', () => {
  it('--prefix, --queue-prefix: server and worker meet under the given Redis key prefix; the default prefix is "arbiter"', async () => {
    const w = await worker(['--grader', files.cheap!, '--prefix', 'optwalk', ...FAST]);
    const s = await serve(['--queue', redis.url, '--queue-prefix', 'optwalk', '--grader', files.cheap!]);
    servers.add(s);
    const r = await postJSON(`${s.url}/v1/score`, { samples: samples(3) });
    expect(r.status).toBe(200);
    expect(r.json.results.map((x: { score: number }) => x.score)).toEqual([1, 1, 1]);
    const db = new Redis(redis.url);
    try {
      expect((await db.keys('optwalk:*')).length).toBeGreaterThan(0);
      expect(await db.keys('arbiter:*')).toEqual([]);
      await s.stop();
      servers.delete(s);
      await w.kill();
      workers.delete(w);
      // the same pair on defaults uses "arbiter:" keys
      const dw = await worker(['--grader', files.cheap!, ...FAST]);
      const ds = await serve(['--queue', redis.url, '--grader', files.cheap!]);
      servers.add(ds);
      expect((await postJSON(`${ds.url}/v1/score`, { samples: samples(2) })).status).toBe(200);
      expect((await db.keys('arbiter:*')).length).toBeGreaterThan(0);
      await ds.stop();
      servers.delete(ds);
      await dw.kill();
      workers.delete(dw);
    } finally {
      db.disconnect();
    }
  }, 60_000);

  it('--unsafe-no-sandbox: the graded program sees the host only on a worker started with it', async () => {
    // a folder of the host that the sandbox does not mount
    const marker = mkdtempSync(join(tmpdir(), 'arbiter-host-only-'));
    const host = graderFiles({
      host: {
        type: 'python',
        name: 'host',
        source: `import os\ndef grade(sample, item):\n    return 1.0 if os.path.isdir(${JSON.stringify(marker)}) else 0.0`,
      },
    }).host!;
    const scoreVia = async (prefix: string, extra: string[]) => {
      await worker(['--grader', host, '--prefix', prefix, ...FAST, ...extra]);
      const s = await serve(['--queue', redis.url, '--queue-prefix', prefix, '--grader', host]);
      servers.add(s);
      const r = await postJSON(`${s.url}/v1/score`, { samples: samples(1) });
      expect(r.status).toBe(200);
      expect(r.json.results[0].valid, r.text).toBe(true);
      return r.json.results[0].score as number;
    };
    try {
      expect(await scoreVia('sandboxed', [])).toBe(0);
      expect(await scoreVia('unsafe', ['--unsafe-no-sandbox'])).toBe(1);
    } finally {
      rmSync(marker, { recursive: true, force: true });
    }
  }, 120_000);

  it("--name: the worker's id starts with the given name; the default id starts with the host name", async () => {
    const [named, plain] = await Promise.all([worker(['--grader', files.cheap!, '--name', 'optwalk-box']), worker(['--grader', files.cheap!])]);
    expect(named.id.startsWith('optwalk-box-')).toBe(true);
    expect(plain.id.startsWith(`${hostname().replace(/[^A-Za-z0-9_.-]/g, '_')}-`)).toBe(true);
    await Promise.all([named.kill(), plain.kill()]);
    workers.delete(named);
    workers.delete(plain);
  }, 60_000);

  it('--no-probe-endpoints: a judge whose endpoint refuses connections is served without the check; by default it is refused', async () => {
    const probed = await worker(['--grader', files.unreachable!]);
    expect(probed.events.find((e) => e.event === 'refused')).toMatchObject({ grader: 'unreachable', message: expect.stringMatching(/unreachable from here/) });
    expect(await probed.exited).toBe(2); // nothing left to serve
    workers.delete(probed);
    const w = await worker(['--grader', files.unreachable!, '--no-probe-endpoints']);
    expect(w.events.some((e) => e.event === 'refused')).toBe(false);
    expect(w.events.find((e) => e.event === 'serving')).toMatchObject({ grader: 'unreachable' });
    await w.kill();
    workers.delete(w);
  }, 60_000);

  it('--max-stalled: with 0, a job whose worker is SIGKILLed mid-grade is not retried (its samples come back ungraded); the default retries it and grades them', async () => {
    const run = async (extra: string[]) => {
      const victim = await worker(['--grader', files.judge!, ...FAST, ...extra]);
      const s = await serve(['--queue', redis.url, '--grader', files.judge!, '--queue-batch', '2', '--deadline-ms', '60000']);
      servers.add(s);
      const held = gate.hold(2);
      const reply = postJSON(`${s.url}/v1/score`, { samples: samples(2) });
      await held;
      await victim.waitFor((e) => e.event === 'active', 'the job');
      const rescuer = await worker(['--grader', files.judge!, ...FAST, ...extra]);
      expect(await victim.kill('SIGKILL')).toBe('SIGKILL');
      workers.delete(victim);
      gate.release();
      const r = await reply;
      await s.stop();
      servers.delete(s);
      await rescuer.kill();
      workers.delete(rescuer);
      return r;
    };
    const none = await run(['--max-stalled', '0']);
    expect(none.status).toBe(200);
    for (const x of none.json.results) expect(x.valid).toBe(false);
    expect(JSON.stringify(none.json.results[0])).toMatch(/stall/i);
    const retried = await run([]);
    expect(retried.status).toBe(200);
    for (const x of retried.json.results) expect(x).toMatchObject({ valid: true, score: 7 });
  }, 90_000);

  it('--image-dir, --image-url: a queued judge grade reads its image from what the worker allows; without the flags the same samples are config_error, naming them', async () => {
    const png = await sharp({ create: { width: 12, height: 6, channels: 3, background: { r: 200, g: 10, b: 40 } } })
      .png()
      .toBuffer();
    const images = mkdtempSync(join(tmpdir(), 'arbiter-worker-img-'));
    mkdirSync(join(images, 'shots'));
    writeFileSync(join(images, 'shots', 'pic.png'), png);
    judgeServer.route('/img/pic.png', () => ({ body: png }));
    const prefix = `${judgeServer.url.replace(/\/v1$/, '')}/img/`;
    const vision = graderFiles({
      vision: {
        ...judgeConfig(judgeServer.url),
        name: 'vision',
        input: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: '{{item.image}}' } },
              { type: 'text', text: 'Rate: {{sample.output_text}}' },
            ],
          },
        ],
      },
    }).vision!;
    const pics = [
      { id: 'file', item: { image: 'shots/pic.png' }, sample: { output_text: 'a' } },
      { id: 'url', item: { image: `${prefix}pic.png` }, sample: { output_text: 'b' } },
    ];
    const scoreVia = async (queuePrefix: string, extra: string[]) => {
      const w = await worker(['--grader', vision, '--prefix', queuePrefix, ...FAST, ...extra]);
      // the server has no image flags: the worker's are what the grade uses
      const s = await serve(['--queue', redis.url, '--queue-prefix', queuePrefix, '--grader', vision]);
      servers.add(s);
      const r = await postJSON(`${s.url}/v1/score`, { samples: pics });
      expect(r.status, r.text).toBe(200);
      await s.stop();
      servers.delete(s);
      await w.kill();
      workers.delete(w);
      return r.json.results as { valid: boolean; score: number; error?: { kind: string; message: string } }[];
    };
    try {
      const before = judgeServer.chatRequests.length;
      const open = await scoreVia('img-open', ['--image-dir', images, '--image-url', prefix]);
      expect(open.map((x) => [x.valid, x.score])).toEqual([
        [true, 7],
        [true, 7],
      ]);
      const sent = judgeServer.chatRequests.slice(before).map((q) => q.body.messages[0].content[0].image_url.url as string);
      expect(sent.map((u) => Buffer.from(u.split(',')[1]!, 'base64').equals(png))).toEqual([true, true]);
      const asked = judgeServer.chatRequests.length;
      const closed = await scoreVia('img-closed', []);
      expect(closed.map((x) => x.error?.kind)).toEqual(['config_error', 'config_error']);
      expect(closed[0]!.error!.message).toMatch(/--image-dir/);
      expect(closed[1]!.error!.message).toMatch(/--image-url/);
      expect(judgeServer.chatRequests.length).toBe(asked); // no judge call without the image
    } finally {
      rmSync(images, { recursive: true, force: true });
    }
  }, 90_000);
});
