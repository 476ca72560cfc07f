// `arbiter design`: the LLM reward-design loop (src/design/run.ts). Reads the task description, the
// trajectories (arbiter records: the trajectory in sample.trajectory, labels in item) and optional
// pairwise preferences, runs K iterations of N candidates against an OpenAI-compatible model, and
// writes the run folder, the best candidate as a `python` grader and an HTML report.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { Services } from '../../core/services.js';
import { readJsonlRows } from '../../eval/prm.js';
import { IoError } from '../../io/errors.js';
import { FITNESS, RANK_METHODS, type FitnessKind, type RankMethod } from '../../design/fitness.js';
import { ProgressLine, progressEnabled } from '../../io/progress.js';
import { die, EXIT } from '../exit.js';

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

function integer(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}

function temperature(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 2) throw new InvalidArgumentError('must be a number from 0 to 2');
  return n;
}

function fitnessKind(v: string): FitnessKind {
  if (!(FITNESS as readonly string[]).includes(v)) throw new InvalidArgumentError(`must be one of ${FITNESS.join(', ')}`);
  return v as FitnessKind;
}

function rankMethod(v: string): RankMethod {
  if (!(RANK_METHODS as readonly string[]).includes(v)) throw new InvalidArgumentError(`must be one of ${RANK_METHODS.join(', ')}`);
  return v as RankMethod;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new IoError(`cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

interface Opts {
  task: string;
  trajectories: string;
  preferences?: string;
  modelUrl?: string;
  model: string;
  iterations: number;
  candidates: number;
  fitness: FitnessKind;
  rank: RankMethod;
  label: string;
  out: string;
  resume?: boolean;
  seed: number;
  temperature: number;
  maxTokens: number;
  callTimeoutMs: number;
  progress?: boolean;
}

function usage(message: string): never {
  process.stderr.write(`arbiter: ${message}\nsee 'arbiter design --help'\n`);
  process.exit(EXIT.USAGE);
}

export function register(program: Command): void {
  program
    .command('design')
    .description(
      'LLM reward design (Eureka-style): a model writes Python reward(trajectory) candidates, each runs in the sandbox over the trajectories and is scored by a fitness; the best, revised over iterations from its reward reflection, is written as a python grader',
    )
    .requiredOption('--task <file>', 'task description (text or Markdown) given to the model')
    .requiredOption('--trajectories <file>', 'JSONL records {"id", "sample": {"trajectory": ...}, "item": {labels}}')
    .option('--preferences <file>', 'JSONL pairwise preferences {"chosen": id, "rejected": id, "tie"?: true} (for --fitness preference)')
    .option('--model-url <url>', 'OpenAI-compatible base URL of the model (default $OPENAI_BASE_URL); the key is $OPENAI_API_KEY')
    .requiredOption('--model <name>', 'model name sent to the server')
    .option('--iterations <k>', 'iterations of the loop', positiveInt, 3)
    .option('--candidates <n>', 'candidate rewards asked for per iteration', positiveInt, 4)
    .option('--fitness <kind>', `how candidates are ranked: ${FITNESS.join(', ')}`, fitnessKind, 'rank')
    .option('--rank <method>', `the rank correlation of --fitness rank: ${RANK_METHODS.join(', ')} (tau-b)`, rankMethod, 'spearman')
    .option(
      '--label <field>',
      'item field holding the success label (rank: a number or boolean; separation: a boolean); also what the reflection correlates components with',
      'success',
    )
    .option('--out <dir>', 'run folder (candidates, replies, rewards, best/grader.json, report.html)', 'design-run')
    .option('--resume', 'continue the run in --out: stored replies are not asked for again, evaluated candidates not run again')
    .option('--seed <n>', 'seed of the model requests (candidate j of iteration k sends seed + 1000(k-1) + j)', integer, 0)
    .option('--temperature <t>', 'sampling temperature of the model', temperature, 1)
    .option('--max-tokens <n>', 'longest reply, in tokens', positiveInt, 4096)
    .option('--call-timeout-ms <ms>', 'time limit of one reward(trajectory) call in the sandbox', positiveInt, 2000)
    .option('--progress', 'show the progress line on stderr even when it is not a terminal')
    .option('--no-progress', 'never show the progress line')
    .action(async (o: Opts) => {
      const { DesignInputError, runDesign } = await import('../../design/run.js');
      const { designReport } = await import('../../design/report.js');
      const services = new Services({});
      try {
        const task = readText(o.task, 'the task description');
        const rows = await readRows(o.trajectories);
        const preferences = o.preferences ? await readPreferences(o.preferences) : [];
        const { getChatClient, resolveEndpoint } = await import('../../models/endpoint.js');
        const ep = resolveEndpoint(o.modelUrl ? { base_url: o.modelUrl } : {});
        const client = getChatClient(services, ep);
        const { SandboxPool } = await import('../../sandbox/pool.js');
        const pool = services.get(
          'design-sandbox',
          () => new SandboxPool({}),
          (p) => p.close(),
        );
        const settings = {
          model: o.model,
          baseURL: ep.baseURL,
          iterations: o.iterations,
          candidates: o.candidates,
          fitness: o.fitness,
          rankMethod: o.rank,
          label: o.label,
          seed: o.seed,
          temperature: o.temperature,
          maxTokens: o.maxTokens,
          callMs: o.callTimeoutMs,
        };
        let failed = 0;
        let best: number | undefined;
        const progress = new ProgressLine({
          enabled: progressEnabled(o.progress),
          label: 'design',
          noun: 'candidates',
          total: o.iterations * o.candidates,
          extra: () => `${failed} failed, best ${best === undefined ? 'none' : best.toFixed(4)}`,
        });
        let result: Awaited<ReturnType<typeof runDesign>>;
        try {
          result = await runDesign(settings, { task, rows, preferences }, o.out, {
            client,
            pool,
            resume: Boolean(o.resume),
            hooks: {
              onCandidate: (r) => {
                if (r.status === 'failed') failed++;
                else if (best === undefined || r.fitness! > best) best = r.fitness!;
                progress.tick();
              },
            },
          });
        } catch (e) {
          if (e instanceof DesignInputError) usage(e.message);
          throw e;
        }
        progress.done();
        const winning = result.best?.files.code ? readFileSync(join(o.out, result.best.files.code), 'utf8') : undefined;
        const report = designReport(result, {
          fitness: o.fitness,
          label: o.label,
          model: o.model,
          inputs: { task: o.task, trajectories: o.trajectories, ...(o.preferences ? { preferences: o.preferences } : {}) },
          ...(winning !== undefined ? { winningCode: winning } : {}),
        });
        const { renderHtml } = await import('../../eval/render/html.js');
        writeFileSync(join(o.out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
        writeFileSync(join(o.out, 'report.html'), renderHtml(report));
        for (const i of result.iterations)
          process.stdout.write(
            `iteration ${i.iteration}: ${i.worked} ran, ${i.failed} failed, best ${i.best_fitness === undefined ? 'none' : i.best_fitness.toFixed(4)}\n`,
          );
        if (!result.best) {
          process.stderr.write(`arbiter: no candidate ran in ${result.records.length}; the errors are in ${join(o.out, 'candidates.jsonl')}\n`);
          await services.close();
          process.exit(EXIT.INTERNAL);
        }
        process.stdout.write(
          `best: iteration ${result.best.iteration}, candidate ${result.best.index + 1}, fitness (${o.fitness}) ${result.best.fitness!.toFixed(4)}; grader ${join(o.out, 'best', 'grader.json')}, report ${join(o.out, 'report.html')}\n`,
        );
        await services.close();
        process.exit(EXIT.OK);
      } catch (e) {
        await services.close().catch(() => {});
        if (e instanceof DesignInputError) usage(e.message);
        const { ModelError } = await import('../../models/errors.js');
        if (e instanceof ModelError) {
          process.stderr.write(`arbiter: the model server failed (${e.kind}): ${e.message}; --resume continues from the replies stored so far\n`);
          process.exit(EXIT.INTERNAL);
        }
        die(e);
      }
    });
}

async function readRows(file: string) {
  const rows = (await readJsonlRows([file])).map((x) => x.row);
  const seen = new Set<string>();
  return rows.map((r, i) => {
    const rec = r as { id?: unknown; sample?: { trajectory?: unknown }; item?: unknown } | null;
    if (!rec || typeof rec !== 'object' || !rec.sample || typeof rec.sample !== 'object' || rec.sample.trajectory === undefined)
      throw new IoError(`${file}: record ${i + 1} has no sample.trajectory`);
    const id = rec.id === undefined ? String(i + 1) : typeof rec.id === 'string' || typeof rec.id === 'number' ? String(rec.id) : undefined;
    if (id === undefined) throw new IoError(`${file}: record ${i + 1}: "id" must be a string or a number`);
    if (seen.has(id)) throw new IoError(`${file}: record ${i + 1}: id ${JSON.stringify(id)} appears twice`);
    seen.add(id);
    const item = rec.item && typeof rec.item === 'object' && !Array.isArray(rec.item) ? (rec.item as Record<string, unknown>) : {};
    return { id, trajectory: rec.sample.trajectory, item };
  });
}

async function readPreferences(file: string) {
  return (await readJsonlRows([file])).map(({ row }, i) => {
    const p = row as { chosen?: unknown; rejected?: unknown; tie?: unknown } | null;
    const ok = (x: unknown) => typeof x === 'string' || typeof x === 'number';
    if (!p || !ok(p.chosen) || !ok(p.rejected)) throw new IoError(`${file}: row ${i + 1} is not {"chosen": id, "rejected": id}`);
    return { chosen: String(p.chosen), rejected: String(p.rejected), ...(p.tie === true ? { tie: true } : {}) };
  });
}
