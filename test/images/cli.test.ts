// `arbiter score|serve --image-dir DIR --image-url PREFIX`: the operator's image sources on the
// command line. With the flag the judge gets the image; without it the same line is refused (config_error,
// naming the flag), so the flags are what opens a folder or a host, and nothing else does.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer } from '../helpers/openai-test-server.js';
import { post } from '../server/helpers.js';
import { serve } from '../server/serve-process.js';

const server = await startTestServer();
const dir = mkdtempSync(join(tmpdir(), 'arbiter-img-cli-'));
const images = join(dir, 'images');
mkdirSync(images);
const png = await sharp({ create: { width: 16, height: 8, channels: 3, background: { r: 10, g: 20, b: 30 } } })
  .png()
  .toBuffer();
writeFileSync(join(images, 'pic.png'), png);
server.route('/img/pic.png', () => ({ body: png }));
const prefix = `${server.url.replace(/\/v1$/, '')}/img/`;
const grader = join(dir, 'grader.json');
writeFileSync(
  grader,
  JSON.stringify({
    type: 'score_model',
    model: 'vlm',
    base_url: server.url,
    api_key: 'EMPTY',
    max_retries: 0,
    cache: false,
    range: [0, 10],
    input: [
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: '{{item.image}}' } },
          { type: 'text', text: '{{sample.output_text}}' },
        ],
      },
    ],
  }),
);
const input = join(dir, 'in.jsonl');
writeFileSync(
  input,
  [
    JSON.stringify({ id: 'file', item: { image: 'pic.png' }, output_text: 'a' }),
    JSON.stringify({ id: 'url', item: { image: `${prefix}pic.png` }, output_text: 'b' }),
  ].join('\n') + '\n',
);

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (s: string) =>
  s
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('score --image-dir / --image-url', () => {
  it('with both flags the judge receives both images', async () => {
    server.onChat(() => ({ content: 'Score: 7' }));
    const r = await runCli(['score', '--grader', grader, input, '--no-progress', '--image-dir', images, '--image-url', prefix]);
    expect(r.stderr).not.toMatch(/error/i);
    const out = lines(r.stdout);
    expect(out.map((o) => [o.id, o.valid, o.score])).toEqual([
      ['file', true, 7],
      ['url', true, 7],
    ]);
    const sent = server.requests.filter((q) => q.path.endsWith('/chat/completions')).map((q) => q.body.messages[0].content[0].image_url.url as string);
    expect(sent.map((u) => Buffer.from(u.split(',')[1]!, 'base64').equals(png))).toEqual([true, true]);
  });

  it('without them the same lines are config_error, naming the flag; no judge call is made', async () => {
    server.requests.length = 0;
    const r = await runCli(['score', '--grader', grader, input, '--no-progress']);
    const out = lines(r.stdout);
    expect(out.map((o) => o.error?.kind)).toEqual(['config_error', 'config_error']);
    expect(out[0].error.message).toMatch(/--image-dir/);
    expect(out[1].error.message).toMatch(/--image-url/);
    expect(server.requests.filter((q) => q.path.endsWith('/chat/completions'))).toHaveLength(0);
  });

  it('refuses an --image-url that is not a plain http(s) prefix', async () => {
    const r = await runCli(['score', '--grader', grader, input, '--image-url', 'ftp://x/']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/must be an http:\/\/ or https:\/\/ URL/);
  });
});

describe('serve --image-dir / --image-url', () => {
  it('the served judge reads the image only with the flags', async () => {
    server.onChat(() => ({ content: 'Score: 6' }));
    const [open, closed] = await Promise.all([serve(['--grader', grader, '--image-dir', images, '--image-url', prefix]), serve(['--grader', grader])]);
    try {
      const samples = [
        { item: { image: 'pic.png' }, output_text: 'a' },
        { item: { image: `${prefix}pic.png` }, output_text: 'b' },
      ];
      const a = await post(`${open.url}/v1/score`, { samples });
      expect(a.body.results.map((r: any) => [r.valid, r.score])).toEqual([
        [true, 6],
        [true, 6],
      ]);
      const b = await post(`${closed.url}/v1/score`, { samples });
      expect(b.body.results.map((r: any) => r.error?.kind)).toEqual(['config_error', 'config_error']);
    } finally {
      await Promise.all([open.stop(), closed.stop()]);
    }
  }, 120_000);
});
