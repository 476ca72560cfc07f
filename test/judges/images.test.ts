// Images in every model grader, end to end: a config's image parts (or `images` field) rendered
// from the sample or item, resolved under the operator's sources, resized per `vision`, and sent to
// the protocol-faithful local server as data URLs; the test decodes what the server received and
// compares its size and pixels with the expected resized image. Refusals carry an error kind by whose
// image it is (the item's or config's: invalid; the response's: the valid floor), nothing is dropped
// from the prompt, and the response cache is keyed by the bytes sent, never by a path.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../helpers/openai-test-server.js';

const server: TestServer = await startTestServer();
const root = mkdtempSync(join(tmpdir(), 'arbiter-judge-img-'));
const imgDir = join(root, 'images');
const cacheDir = join(root, 'cache');
const outside = mkdtempSync(join(tmpdir(), 'arbiter-judge-img-out-'));
mkdirSync(imgDir, { recursive: true });
let services: Services | undefined;

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});
afterEach(async () => {
  await services?.close();
  services = undefined;
  server.requests.length = 0;
  server.onChat(() => ({ content: 'Score: 1' }));
});

function svc(): Services {
  services = new Services({ cacheDir, images: { dirs: [imgDir] } });
  return services;
}

/** A gradient picture (so resizing shows in the pixels), as PNG bytes. */
async function picture(width: number, height: number, blue = 128): Promise<Buffer> {
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      px[i] = Math.round((x * 255) / (width - 1));
      px[i + 1] = Math.round((y * 255) / (height - 1));
      px[i + 2] = blue;
    }
  return sharp(px, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

const dataUrl = (b: Buffer, mime = 'image/png') => `data:${mime};base64,${b.toString('base64')}`;
const bytesOf = (u: string) => Buffer.from(u.slice(u.indexOf(',') + 1), 'base64');

/** Every image part of the chat requests the server received. */
function imageParts(r: RecordedRequest): { type: string; image_url: { url: string } }[] {
  const msgs = (r.body.messages ?? []) as { content: unknown }[];
  return msgs.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p: any) => p.type === 'image_url') : []));
}

const base = { model: 'vlm-judge', base_url: server.url, max_retries: 0, cache: false };
const scoreCfg = (extra: Record<string, unknown> = {}) => ({
  type: 'score_model',
  name: 'visual',
  ...base,
  range: [0, 10],
  input: [
    { role: 'system', content: 'You judge answers about images.' },
    {
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: '{{item.image}}' } },
        { type: 'text', text: 'Question: {{item.question}}\nAnswer: {{sample.output_text}}' },
      ],
    },
  ],
  ...extra,
});

const src = await picture(300, 120);

describe('a judge receives the image', () => {
  it('score_model: the image part as the chat API takes it, resized to max_side, exact pixels, with the scale in metadata', async () => {
    const g = loadGrader(scoreCfg({ vision: { max_side: 100 } }));
    const r = await grade(
      g,
      { item: { image: dataUrl(src), question: 'Which way does red grow?' }, sample: { output_text: 'to the right' } },
      { services: svc() },
    );
    expect(r.valid).toBe(true);
    expect(server.requests).toHaveLength(1);
    const user = server.requests[0]!.body.messages[1];
    expect(user.content).toHaveLength(3); // image, text, and the format instruction
    expect(user.content[0]).toEqual({ type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } });
    expect(user.content[1]).toEqual({ type: 'text', text: 'Question: Which way does red grow?\nAnswer: to the right' });
    const got = await sharp(bytesOf(user.content[0].image_url.url)).raw().toBuffer({ resolveWithObject: true });
    expect(got.info).toMatchObject({ width: 100, height: 40, channels: 3 });
    const want = await sharp(src).resize(100, 40, { fit: 'fill' }).raw().toBuffer();
    expect(got.data.equals(want)).toBe(true);
    expect(r.metadata.images).toEqual([
      expect.objectContaining({
        where: 'input[1].content[0]',
        origin: 'item',
        source: 'data',
        format: 'png',
        width: 300,
        height: 120,
        sent_width: 100,
        sent_height: 40,
        scale: { sx: 1 / 3, sy: 1 / 3 },
      }),
    ]);
  });

  it('a file under the allowed folder, sent as its own bytes when no resize is asked', async () => {
    writeFileSync(join(imgDir, 'chart.png'), src);
    const g = loadGrader(scoreCfg());
    const r = await grade(g, { item: { image: 'chart.png', question: 'q' }, sample: { output_text: 'a' } }, { services: svc() });
    expect(r.valid).toBe(true);
    const [part] = imageParts(server.requests[0]!);
    expect(bytesOf(part!.image_url.url).equals(src)).toBe(true);
    expect(r.metadata.images).toEqual([expect.objectContaining({ source: 'file', sent_width: 300, scale: { sx: 1, sy: 1 } })]);
  });

  it('an http URL under an allowed prefix (the image fetched by arbiter, not by the model server)', async () => {
    server.route('/images/chart.png', () => ({ body: src }));
    const prefix = `${server.url.replace(/\/v1$/, '')}/images/`;
    services = new Services({ cacheDir, images: { urls: [prefix] } });
    const r = await grade(loadGrader(scoreCfg()), { item: { image: `${prefix}chart.png`, question: 'q' }, sample: { output_text: 'a' } }, { services });
    expect(r.valid).toBe(true);
    const chat = server.requests.find((q) => q.path.endsWith('/chat/completions'))!;
    expect(bytesOf(imageParts(chat)[0]!.image_url.url).equals(src)).toBe(true);
    expect(JSON.stringify(chat.body)).not.toContain('/images/chart.png');
  });

  it("smart_resize: Qwen-VL's size, multiples of 28", async () => {
    const g = loadGrader(scoreCfg({ vision: { smart_resize: true } }));
    const r = await grade(g, { item: { image: dataUrl(src), question: 'q' }, sample: { output_text: 'a' } }, { services: svc() });
    const meta = await sharp(bytesOf(imageParts(server.requests[0]!)[0]!.image_url.url)).metadata();
    // round(300/28)=11 → 308, round(120/28)=4 → 112
    expect([meta.width, meta.height]).toEqual([308, 112]);
    expect(r.metadata.images).toEqual([expect.objectContaining({ sent_width: 308, sent_height: 112, scale: { sx: 308 / 300, sy: 112 / 120 } })]);
  });

  const img = dataUrl(src);
  const cases: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
    [
      'label_model',
      {
        type: 'label_model',
        ...base,
        labels: ['good', 'bad'],
        passing_labels: ['good'],
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_image', image_url: '{{item.image}}' },
              { type: 'input_text', text: '{{sample.output_text}}' },
            ],
          },
        ],
      },
      '{"result": "good"}',
      { score: 1 },
    ],
    // [[A]] in both orders: A wins once, B once
    ['pairwise', { type: 'pairwise', ...base, response_b: '{{item.other}}', images: ['{{item.image}}'] }, '[[A]]', { score: 0.5 }],
    ['rubric', { type: 'rubric', ...base, criteria: ['names the colour'], images: ['{{item.image}}'] }, '[[YES]]', { score: 1 }],
    ['reference_verify', { type: 'reference_verify', ...base, reference: '{{item.answer}}', images: ['{{item.image}}'] }, '[[YES]]', { score: 1 }],
    [
      'prm judge',
      { type: 'prm', protocol: 'judge', ...base, question: 'q', steps: '{{sample.steps}}', images: ['{{item.image}}'] },
      '\\boxed{-1}',
      { score: 1 },
    ],
  ];
  it.each(cases)('%s sends the image before the text of the user message', async (_name, cfg, reply, want) => {
    server.onChat(() => ({ content: reply }));
    const g = loadGrader(cfg);
    const r = await grade(
      g,
      { item: { image: img, other: 'B', answer: 'red' }, sample: { output_text: 'red', steps: ['look', 'say red'] } },
      { services: svc() },
    );
    expect(r).toMatchObject({ valid: true, ...want });
    expect(server.requests.length).toBeGreaterThan(0);
    for (const q of server.requests) {
      const user = q.body.messages.findLast((m: any) => m.role === 'user');
      expect(user.content[0]).toEqual({ type: 'image_url', image_url: { url: img } });
      expect(user.content.slice(1).every((p: any) => p.type === 'text')).toBe(true);
    }
    if (_name === 'pairwise') expect(server.requests).toHaveLength(2); // both orders, the same image
    expect(r.metadata.images).toEqual([expect.objectContaining({ origin: 'item', where: _name === 'label_model' ? 'input[0].content[0]' : 'images[0]' })]);
  });

  it('reward_model (vLLM /pooling with chat messages) receives the image part', async () => {
    server.onReward(() => ({ body: { object: 'list', data: [{ index: 0, object: 'pooling', data: [[0.25]] }] } }));
    const g = loadGrader({
      type: 'reward_model',
      model: 'vl-rm',
      base_url: server.url,
      max_retries: 0,
      protocol: 'vllm_pooling',
      input: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: '{{item.image}}' } },
            { type: 'text', text: 'What is shown?' },
          ],
        },
        { role: 'assistant', content: '{{sample.output_text}}' },
      ],
      vision: { max_side: 150 },
    });
    const r = await grade(g, { item: { image: img }, sample: { output_text: 'a gradient' } }, { services: svc() });
    expect(r).toMatchObject({ valid: true, score: 0.25 });
    const q = server.requests.find((x) => x.path === '/pooling')!;
    const part = q.body.messages[0].content[0];
    expect(part.type).toBe('image_url');
    const m = await sharp(bytesOf(part.image_url.url)).metadata();
    expect([m.width, m.height]).toEqual([150, 60]);
  });
});

describe('refusals: never dropped, kinds by whose image it is', () => {
  const run = (cfg: Record<string, unknown>, item: Record<string, unknown>, sample: Record<string, unknown> = { output_text: 'a' }) =>
    grade(loadGrader(cfg), { item: { question: 'q', ...item }, sample }, { services: svc() });

  it("the item's image: a disallowed path is config_error, a symlink out too; nothing is sent", async () => {
    writeFileSync(join(outside, 'secret.png'), src);
    let r = await run(scoreCfg(), { image: join(outside, 'secret.png') });
    expect(r).toMatchObject({ valid: false, error: { kind: 'config_error', message: expect.stringMatching(/not inside a folder the operator allows/) } });
    symlinkSync(join(outside, 'secret.png'), join(imgDir, 'link.png'));
    r = await run(scoreCfg(), { image: 'link.png' });
    expect(r).toMatchObject({ valid: false, error: { kind: 'config_error' } });
    r = await run(scoreCfg(), { image: '../secret.png' });
    expect(r).toMatchObject({ valid: false, error: { kind: 'config_error' } });
    expect(server.requests).toHaveLength(0);
  });

  it("the item's image: undecodable, wrong magic, SVG are bad_input; over bytes or pixels limit_exceeded", async () => {
    const cases: [unknown, Record<string, unknown>, string, RegExp][] = [
      [dataUrl(src.subarray(0, src.length - 30)), {}, 'bad_input', /cannot be decoded|cannot be read/],
      [dataUrl(Buffer.from('GIF00a not really')), {}, 'bad_input', /accepted formats/],
      [dataUrl(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml'), {}, 'bad_input', /SVG/],
      [dataUrl(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), {}, 'bad_input', /SVG/], // claimed PNG: the bytes decide
      [dataUrl(src), { max_image_bytes: 100 }, 'limit_exceeded', /max_image_bytes/],
      [dataUrl(src), { max_image_pixels: 300 * 120 - 1 }, 'limit_exceeded', /max_image_pixels/],
      [dataUrl(src), { max_side: 100, max_request_bytes: 50 }, 'limit_exceeded', /max_request_bytes/],
      [dataUrl(src), { max_request_pixels: 1000 }, 'limit_exceeded', /max_request_pixels/],
      [42, {}, 'bad_input', /must be a string/],
      ['missing.png', {}, 'bad_input', /does not exist/],
    ];
    for (const [image, vision, kind, message] of cases) {
      const r = await run(scoreCfg({ vision }), { image });
      expect(r, String(message)).toMatchObject({ valid: false, error: { kind, message: expect.stringMatching(message) } });
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a literal image in the config that cannot be had is config_error', async () => {
    const cfg = scoreCfg();
    (cfg.input as any)[1].content[0].image_url.url = join(outside, 'secret.png');
    const r = await run(cfg, {});
    expect(r).toMatchObject({ valid: false, error: { kind: 'config_error', message: expect.stringMatching(/in the grader config/) } });
  });

  it("the response's image: undecodable, disallowed or over a limit is the valid floor, with the reason", async () => {
    const cfg = scoreCfg();
    (cfg.input as any)[1].content[0].image_url.url = '{{sample.image}}';
    for (const [image, fault] of [
      [dataUrl(Buffer.from('not an image')), 'bad_input'],
      [join(outside, 'secret.png'), 'bad_input'],
      ['https://example.com/x.png', 'bad_input'],
    ] as const) {
      const r = await run(cfg, {}, { output_text: 'a', image });
      expect(r).toMatchObject({ valid: true, score: 0, reason: expect.stringMatching(/from the response/), metadata: { response_fault: fault } });
    }
    const big = await run({ ...cfg, vision: { max_image_pixels: 100 } }, {}, { output_text: 'a', image: dataUrl(src) });
    expect(big).toMatchObject({ valid: true, score: 0, metadata: { response_fault: 'limit_exceeded' } });
    expect(server.requests).toHaveLength(0);
  });

  it("per request: the item's images count first, so only an image the response adds past max_images is its fault", async () => {
    const two = (second: string) => {
      const cfg = scoreCfg({ vision: { max_images: 1 } });
      (cfg.input as any)[1].content.splice(1, 0, { type: 'image_url', image_url: { url: second } });
      return cfg;
    };
    const byResponse = await run(two('{{sample.image}}'), { image: dataUrl(src) }, { output_text: 'a', image: dataUrl(src) });
    expect(byResponse).toMatchObject({ valid: true, score: 0, metadata: { response_fault: 'limit_exceeded' } });
    const byItem = await run(two('{{item.image}}'), { image: dataUrl(src) });
    expect(byItem).toMatchObject({ valid: false, error: { kind: 'limit_exceeded', message: expect.stringMatching(/max_images/) } });
  });

  it('a part of another type is refused (in the config at load, from the item per sample), never passed on', async () => {
    const cfg = scoreCfg();
    (cfg.input as any)[1].content.push({ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } });
    expect(() => loadGrader(cfg)).toThrow(/input_audio/);
    const viaItem = scoreCfg({ input: [{ role: 'user', content: '{{item.parts}}' }] });
    const r = await run(viaItem, {
      parts: [
        { type: 'text', text: 'hi' },
        { type: 'video_url', video_url: { url: 'x' } },
      ],
    });
    expect(r).toMatchObject({ valid: false, error: { kind: 'bad_input', message: expect.stringMatching(/video_url/) } });
    // image parts inside an item's content are images too: checked like the others
    const ok = await run(viaItem, { parts: [{ type: 'image_url', image_url: { url: 'missing.png' } }] });
    expect(ok).toMatchObject({ valid: false, error: { kind: 'bad_input', message: expect.stringMatching(/item\.parts|content \(part 0\)/) } });
  });

  it('reward_model: an image from the response needs a bounded reward (sigmoid)', () => {
    const rm = (sigmoid?: boolean) => ({
      type: 'reward_model',
      model: 'vl-rm',
      base_url: server.url,
      protocol: 'vllm_pooling',
      ...(sigmoid ? { sigmoid } : {}),
      input: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: '{{sample.image}}' } }] }],
    });
    expect(() => loadGrader(rm())).toThrow(/sigmoid/);
    expect(() => loadGrader(rm(true))).not.toThrow();
  });
});

describe('limits from a request only go down', () => {
  it('a vision limit above its default is an unsafe capability; one below is not', () => {
    const raised = loadGrader(scoreCfg({ vision: { max_image_bytes: 64 * 1024 * 1024, max_images: 4 } }));
    expect(raised.capabilities.filter((c) => c.capability === 'unsafe').map((c) => c.field)).toEqual(['vision.max_image_bytes']);
    const lowered = loadGrader(scoreCfg({ vision: { max_image_bytes: 1024, max_request_pixels: 10 } }));
    expect(lowered.capabilities.some((c) => c.capability === 'unsafe')).toBe(false);
  });
});

describe('the response cache is keyed by the image bytes sent', () => {
  it('two files at one path miss; the same bytes at two paths hit', async () => {
    const cfg = scoreCfg({ cache: true });
    const other = await picture(300, 120, 0);
    const p = join(imgDir, 'cached.png');
    const go = async (image: string) => {
      services = new Services({ cacheDir, images: { dirs: [imgDir] } });
      const r = await grade(loadGrader(cfg), { item: { image, question: 'cache' }, sample: { output_text: 'a' } }, { services });
      await services.close();
      services = undefined;
      return r;
    };
    writeFileSync(p, src);
    expect((await go('cached.png')).metadata.cached).toBe(false);
    expect(server.requests).toHaveLength(1);
    writeFileSync(p, other); // same path, other picture
    expect((await go('cached.png')).metadata.cached).toBe(false);
    expect(server.requests).toHaveLength(2);
    copyFileSync(p, join(imgDir, 'copy.png')); // the same bytes, another path
    const hit = await go('copy.png');
    expect(hit.metadata.cached).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect((hit.metadata.images as { sha256: string }[])[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
