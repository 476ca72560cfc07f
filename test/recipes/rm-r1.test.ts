// docs/recipes.md, RM-R1 on RM-Bench: the documented command runs as written against a local,
// protocol-faithful OpenAI-compatible judge (OPENAI_BASE_URL) that answers in RM-R1's form
// (reasoning, then <answer>[[A]]</answer>) and prefers the longer response (B at equal length: the config allows no tie): a pure style bias, which
// is what RM-Bench's hard split exposes. RM-Bench's accuracies are recomputed here from its
// definition: per prompt the 3x3 matrix of chosen style i against rejected style j, a cell the share
// of the two orders in which the chosen response won (a tie loses), hard = the mean of the upper
// triangle (chosen plainer than rejected), normal = the diagonal, easy = the lower triangle.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPath } from '../helpers/data.js';
import { type RecordedRequest, startTestServer, type TestServer } from '../helpers/openai-test-server.js';
import { Figures, mean, RECIPES, runSectionAsync } from './helpers.js';

const HEADING = RECIPES['rm-r1']!;

interface RmRecord {
  prompt: string;
  chosen: string[];
  rejected: string[];
}
const between = (text: string, a: string, b: string) => text.slice(text.indexOf(a) + a.length, text.indexOf(b));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    record: false,
    chat: (req: RecordedRequest) => {
      const user = String(req.body.messages.at(-1).content);
      const a = between(user, '[Response A]\n', '\n[End of Response A]').trim();
      const b = between(user, '[Response B]\n', '\n[End of Response B]').trim();
      // no tie allowed: equal lengths go to B, whichever response that is
      const letter = a.length > b.length ? 'A' : 'B';
      return {
        content: `<rubric>Prefer the more thorough answer.</rubric>\n<eval>A has ${a.length} characters, B has ${b.length}.</eval>\n<answer>[[${letter}]]</answer>`,
      };
    },
  });
  process.env.OPENAI_BASE_URL = `${server.url}/v1`;
});
afterAll(async () => {
  delete process.env.OPENAI_BASE_URL;
  await server.close();
});

describe('RM-R1 recipe', () => {
  it('the documented command: RM-Bench hard/normal/easy of the judge, recomputed from the definition', async () => {
    const { dir } = await runSectionAsync(HEADING);
    const report = JSON.parse(readFileSync(join(dir, 'tmp/recipes/rm-r1.json'), 'utf8'));
    const m = report.metrics ?? report;
    const recs = JSON.parse(readFileSync(dataPath('rm-bench/chat_filtered.json'), 'utf8')) as RmRecord[];
    // in both orders the chosen response wins when it is longer; at equal length it wins the order that shows it second
    const win = (r: RmRecord, i: number, j: number) => {
      const c = r.chosen[i]!.trim().length;
      const x = r.rejected[j]!.trim().length;
      return c > x ? 1 : c === x ? 0.5 : 0;
    };
    const acc = [0, 1, 2].map((i) => [0, 1, 2].map((j) => mean(recs.map((r) => win(r, i, j)))));
    const hard = (acc[0]![1]! + acc[0]![2]! + acc[1]![2]!) / 3;
    const normal = (acc[0]![0]! + acc[1]![1]! + acc[2]![2]!) / 3;
    const easy = (acc[1]![0]! + acc[2]![0]! + acc[2]![1]!) / 3;
    expect(m.hard_acc).toBeCloseTo(hard, 12);
    expect(m.normal_acc).toBeCloseTo(normal, 12);
    expect(m.easy_acc).toBeCloseTo(easy, 12);
    const t = new Figures(HEADING);
    expect(m.n).toBe(recs.length);
    t.check('prompts', m.n);
    t.check('hard accuracy', hard);
    t.check('normal accuracy', normal);
    t.check('easy accuracy', easy);
    t.done();
  }, 300_000);
});
