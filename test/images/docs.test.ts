// docs/multimodal.md as written: every recipe config builds, and its shell block runs — the visual
// judge recipe, pointed at the local server, grades a sample whose image file sits in the folder the
// block allows, and the server receives that image.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { loadGrader } from '../../dist/index.js';
import { ROOT } from '../helpers/cli.js';
import { docBlock, docWorkdir, runDoc } from '../helpers/docs.js';
import { startTestServer } from '../helpers/openai-test-server.js';

const page = readFileSync(join(ROOT, 'docs/multimodal.md'), 'utf8');
const recipes = [...page.matchAll(/^```json\n([\s\S]*?)^```/gm)].map((m) => m[1]!).filter((b) => b.includes('"name": "'));
const server = await startTestServer();
afterAll(() => server.close());

describe('docs/multimodal.md', () => {
  it('every recipe config builds', () => {
    expect(recipes.length).toBe(3);
    for (const r of recipes) expect(() => loadGrader(JSON.parse(r))).not.toThrow();
  });

  it('the score block grades with the image from the allowed folder', async () => {
    const dir = docWorkdir();
    const judge = JSON.parse(recipes.find((r) => r.includes('"visual_judge"'))!);
    writeFileSync(join(dir, 'visual-judge.json'), JSON.stringify({ ...judge, base_url: server.url, max_retries: 0 }));
    mkdirSync(join(dir, 'images'));
    const png = await sharp({ create: { width: 112, height: 56, channels: 3, background: { r: 200, g: 0, b: 0 } } })
      .png()
      .toBuffer();
    writeFileSync(join(dir, 'images', 'red.png'), png);
    writeFileSync(join(dir, 'samples.jsonl'), `${JSON.stringify({ id: 1, item: { image: 'red.png', question: 'What colour?' }, output_text: 'red' })}\n`);
    server.onChat(() => ({ content: '{"steps": [], "result": 9}' }));
    const r = await runDoc(docBlock('docs/multimodal.md', 'arbiter score --grader visual-judge.json'), { dir });
    expect(r.code, r.stderr).toBe(0);
    const [line] = readFileSync(join(dir, 'scored.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(line).toMatchObject({ id: 1, valid: true, score: 9 });
    const part = server.requests.find((q) => q.path.endsWith('/chat/completions'))!.body.messages[1].content[0];
    expect(Buffer.from(part.image_url.url.split(',')[1], 'base64').equals(png)).toBe(true); // 112x56: smart_resize keeps it (multiples of 28, over min_pixels)
  });
});
