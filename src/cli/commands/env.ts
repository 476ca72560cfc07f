// `arbiter env`: agent environments (every family of src/envs/). `env serve` runs the HTTP
// environment server (OpenEnv-style reset/step/state/close); `env rollout` drives an
// OpenAI-compatible policy (and, for tau-bench, an OpenAI-compatible user simulator) through
// episodes and writes trajectories as JSONL the tau_bench / bfcl_multi_turn graders read, optionally
// with per-step GiGPO lines; `env tools` prints the tools' schemas.
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { InvalidArgumentError, type Command } from 'commander';
import { die, EXIT } from '../exit.js';
import { positiveInt } from './score.js';

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
}

function finite(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

/** "0-4,7,9-10" → [0,1,2,3,4,7,9,10]. */
export function parseIndexList(v: string): number[] {
  const out: number[] = [];
  for (const part of v.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) throw new InvalidArgumentError(`"${part}" is not an index or a range like 3-7`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a) throw new InvalidArgumentError(`range ${part} goes backwards`);
    if (b - a > 100_000) throw new InvalidArgumentError(`range ${part} is too long`);
    for (let i = a; i <= b; i++) out.push(i);
  }
  return out;
}

interface ModelOpts {
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  temperature?: number;
  maxTokens?: number;
  timeoutMs: number;
  concurrency: number;
}

async function chatClient(m: ModelOpts) {
  const { ChatClient } = await import('../../models/chat-client.js');
  return new ChatClient({
    baseURL: m.baseUrl,
    apiKey: process.env[m.apiKeyEnv] || 'EMPTY',
    maxConcurrency: m.concurrency,
    timeoutMs: m.timeoutMs,
    callTimeoutMs: m.timeoutMs * 2,
  });
}

async function userFactory(o: {
  userModel?: string;
  userBaseUrl?: string;
  userApiKeyEnv: string;
  userTemperature?: number;
  userPrompt?: string;
  userTimeoutMs: number;
  concurrency: number;
}) {
  if (!o.userModel && !o.userBaseUrl) return undefined;
  if (!o.userModel || !o.userBaseUrl) throw new InvalidArgumentError('--user-model and --user-base-url go together');
  const { ChatUserSimulator } = await import('../../agents/user-sim.js');
  const client = await chatClient({
    model: o.userModel,
    baseUrl: o.userBaseUrl,
    apiKeyEnv: o.userApiKeyEnv,
    timeoutMs: o.userTimeoutMs,
    concurrency: o.concurrency,
  });
  const systemPrompt = o.userPrompt ? readFileSync(o.userPrompt, 'utf8') : undefined;
  if (systemPrompt !== undefined && !systemPrompt.includes('{instruction}'))
    throw new InvalidArgumentError(`--user-prompt ${o.userPrompt} has no {instruction} placeholder`);
  const model = o.userModel;
  return () =>
    new ChatUserSimulator(client, {
      model,
      ...(o.userTemperature !== undefined ? { temperature: o.userTemperature } : {}),
      ...(systemPrompt ? { systemPrompt } : {}),
    });
}

function userOptions(cmd: Command): Command {
  return cmd
    .option('--user-model <name>', 'model of the simulated user (tau-bench; the other --user-* options need it and --user-base-url)')
    .option('--user-base-url <url>', 'OpenAI-compatible base URL of the user model, e.g. http://127.0.0.1:8001/v1')
    .option('--user-api-key-env <var>', "environment variable holding the user model's API key", 'OPENAI_API_KEY')
    .option('--user-temperature <t>', "sampling temperature of the user model (default: the server's)", finite)
    .option('--user-prompt <file>', "system prompt of the simulated user, with an {instruction} placeholder (default: arbiter's wording of tau-bench's rules)")
    .option('--user-timeout-ms <ms>', 'deadline of one user-model request', positiveInt, 120_000);
}

/** The user-model options given on the command line whose values only a user simulator reads. */
const USER_SIM_FLAGS: readonly [flag: string, key: string][] = [
  ['--user-api-key-env', 'userApiKeyEnv'],
  ['--user-temperature', 'userTemperature'],
  ['--user-prompt', 'userPrompt'],
  ['--user-timeout-ms', 'userTimeoutMs'],
  ['--user-concurrency', 'userConcurrency'],
];

function givenFlags(cmd: Command, flags: readonly (readonly [string, string])[]): string[] {
  return flags.filter(([, key]) => cmd.getOptionValueSource(key) === 'cli').map(([flag]) => flag);
}

interface ServeOpts {
  host: string;
  port: number;
  token?: string;
  insecure?: boolean;
  maxSessions?: number;
  maxSessionsPerClient?: number;
  sessionIdleMs?: number;
  maxSteps?: number;
  maxStepsPerTurn?: number;
  defaultEnv?: string;
  bodyLimit: number;
  tauBenchDir?: string;
  bfclDir?: string;
  userModel?: string;
  userBaseUrl?: string;
  userApiKeyEnv: string;
  userTemperature?: number;
  userPrompt?: string;
  userTimeoutMs: number;
  userConcurrency: number;
  logLevel?: string;
}

interface RolloutOpts {
  env: string;
  domain?: string;
  tasks?: number[];
  category?: string;
  entries?: number[];
  mode?: string;
  maxStepsPerTurn?: number;
  bfclDir?: string;
  trials: number;
  maxSteps?: number;
  policyModel: string;
  policyBaseUrl: string;
  policyApiKeyEnv: string;
  temperature?: number;
  maxTokens?: number;
  policyTimeoutMs: number;
  firstToolCallOnly?: boolean;
  output?: string;
  stepsOutput?: string;
  concurrency: number;
  tauBenchDir?: string;
  userModel?: string;
  userBaseUrl?: string;
  userApiKeyEnv: string;
  userTemperature?: number;
  userPrompt?: string;
  userTimeoutMs: number;
}

async function writeLine(out: NodeJS.WritableStream, line: string): Promise<void> {
  if (!out.write(line + '\n')) await once(out, 'drain');
}

export function register(program: Command): void {
  const env = program.command('env').description('agent environments: serve them over HTTP, roll out a policy through them, list their tools');

  userOptions(
    env
      .command('serve')
      .description('serve environments over HTTP (OpenEnv-style POST /reset, /step, /close, GET /state, /tools, /health)')
      .option('--host <addr>', 'address to bind (non-loopback needs --token or --insecure)', '127.0.0.1')
      .option('-p, --port <n>', 'port (0 = any free port)', port, 8100)
      .option('--token <token>', 'require "Authorization: Bearer <token>" (default: $ARBITER_TOKEN)')
      .option('--insecure', 'allow a non-loopback --host without a token')
      .option('--max-sessions <n>', 'open episodes at most; a reset past it is answered 429 (default 256)', positiveInt)
      .option(
        '--max-sessions-per-client <n>',
        'open episodes of one client (remote address) at most; a reset past it is answered 429 (default 64, or --max-sessions if lower)',
        positiveInt,
      )
      .option(
        '--session-idle-ms <ms>',
        "an episode unused this long is closed (default 180000: above a policy turn's and a user-model request's 2-minute deadlines)",
        positiveInt,
      )
      .option('--max-steps <n>', 'tau_bench: agent turns per episode before it ends with reward 0 (tau-bench: 30)', positiveInt)
      .option('--max-steps-per-turn <n>', 'bfcl_multi_turn: executed responses per user turn before the entry is force-quit (BFCL: 20)', positiveInt)
      .option('--default-env <name>', 'environment of requests that name none (default: tau_bench)')
      .option('--body-limit <bytes>', 'largest request body accepted', positiveInt, 8 * 1024 * 1024)
      .option(
        '--tau-bench-dir <dir>',
        "folder holding tau-bench's airline/ and retail/ data (default: $ARBITER_TAU_BENCH_DIR, else $ARBITER_DATA/tau-bench; $ARBITER_DATA defaults to ../shared/data beside the project)",
      )
      .option('--bfcl-dir <dir>', "folder holding BFCL's multi_turn/ data (default: $ARBITER_BFCL_DIR, else $ARBITER_DATA/bfcl)")
      .option('--user-concurrency <n>', 'user-model requests in flight at once', positiveInt, 64)
      .option('--log-level <level>', 'log to stdout as JSON at this level'),
  ).action(async (o: ServeOpts, cmd: Command) => {
    try {
      if (!o.userModel && !o.userBaseUrl) {
        const given = givenFlags(cmd, USER_SIM_FLAGS);
        if (given.length) throw new InvalidArgumentError(`${given.join(', ')} set the user simulator: they need --user-model and --user-base-url`);
      }
      const [{ createEnvServer }, { setDataDir }, agents] = await Promise.all([
        import('../../server/env-server.js'),
        import('../../envs/tau_bench/db.js'),
        import('../../envs/index.js'),
      ]);
      if (o.tauBenchDir) setDataDir(o.tauBenchDir);
      if (o.bfclDir) agents.setBfclDataDir(o.bfclDir);
      if (o.defaultEnv && !agents.getEnv(o.defaultEnv)) throw new InvalidArgumentError(`--default-env: unknown environment "${o.defaultEnv}"`);
      const envDefaults: Record<string, Record<string, unknown>> = {};
      if (o.maxSteps) envDefaults.tau_bench = { max_steps: o.maxSteps };
      if (o.maxStepsPerTurn) envDefaults.bfcl_multi_turn = { max_steps_per_turn: o.maxStepsPerTurn };
      const user = await userFactory({ ...o, concurrency: o.userConcurrency });
      const token = o.token ?? (process.env.ARBITER_TOKEN || undefined);
      const server = createEnvServer({
        deps: user ? { user } : {},
        ...(o.maxSessions ? { maxSessions: o.maxSessions } : {}),
        ...(o.maxSessionsPerClient ? { maxSessionsPerClient: o.maxSessionsPerClient } : {}),
        ...(o.sessionIdleMs ? { sessionIdleMs: o.sessionIdleMs } : {}),
        envDefaults,
        ...(o.defaultEnv ? { defaultEnv: o.defaultEnv } : {}),
        ...(token ? { token } : {}),
        insecure: Boolean(o.insecure),
        bodyLimit: o.bodyLimit,
        ...(o.logLevel ? { logger: o.logLevel } : {}),
      });
      let url: string;
      try {
        url = await server.listen({ host: o.host, port: o.port });
      } catch (e) {
        process.stderr.write(`arbiter: ${(e as Error).message}\n`);
        process.exit(EXIT.USAGE);
      }
      const stop = (sig: string) => {
        process.stderr.write(`arbiter env serve: ${sig} received, closing\n`);
        server.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      process.stderr.write(
        `arbiter env serve: listening on ${url}${user ? '' : ' (no user simulator: tau_bench resets need --user-model/--user-base-url)'}${token ? ' (token required)' : ''}\n`,
      );
    } catch (e) {
      if (e instanceof InvalidArgumentError || e instanceof RangeError) {
        process.stderr.write(`arbiter: ${e.message}\n`);
        process.exit(EXIT.USAGE);
      }
      die(e);
    }
  });

  userOptions(
    env
      .command('rollout')
      .description(
        'run a policy through episodes and write trajectories as JSONL ({id, item, sample: {messages, ...}, reward, credit, ...}); grade them with a tau_bench or bfcl_multi_turn grader',
      )
      .option('--env <name>', 'environment: tau_bench or bfcl_multi_turn', 'tau_bench')
      .option('--domain <name>', 'tau_bench: domain, airline or retail')
      .option('--tasks <list>', 'tau_bench: task indices, e.g. 0-9,12 (default: all test tasks)', parseIndexList)
      .option('--category <name>', 'bfcl_multi_turn: base, long_context, miss_func or miss_param')
      .option('--entries <list>', 'bfcl_multi_turn: entry indices in the category, e.g. 0-9 (default: all)', parseIndexList)
      .option('--mode <mode>', 'bfcl_multi_turn: fc (tool calls, default) or prompting (Python calls in the text)')
      .option('--max-steps-per-turn <n>', 'bfcl_multi_turn: executed responses per user turn before the entry is force-quit (BFCL: 20)', positiveInt)
      .option('--bfcl-dir <dir>', "folder holding BFCL's multi_turn/ data")
      .option('--trials <n>', 'episodes per task', positiveInt, 1)
      .option('--max-steps <n>', 'agent turns per episode (tau-bench: 30)', positiveInt)
      .requiredOption('--policy-model <name>', 'model of the agent')
      .requiredOption('--policy-base-url <url>', 'OpenAI-compatible base URL of the agent model')
      .option('--policy-api-key-env <var>', "environment variable holding the agent model's API key", 'OPENAI_API_KEY')
      .option('--temperature <t>', 'sampling temperature of the agent', finite)
      .option('--max-tokens <n>', 'most tokens per agent message', positiveInt)
      .option('--policy-timeout-ms <ms>', 'deadline of one agent-model request', positiveInt, 120_000)
      .option('--first-tool-call-only', "run only the first tool call of each agent message (what tau-bench's own agent does)")
      .option('-o, --output <file>', 'trajectories JSONL (default: stdout)')
      .option('--steps-output <file>', 'also write one line per turn for step-level advantages (uid, traj_uid, anchor_obs, step_reward, episode_return)')
      .option('-c, --concurrency <n>', 'episodes run at once', positiveInt, 4)
      .option('--tau-bench-dir <dir>', "folder holding tau-bench's airline/ and retail/ data"),
  ).action(async (o: RolloutOpts, cmd: Command) => {
    try {
      const [{ ChatPolicy }, { runRollouts, stepRecords }, { setDataDir }, agents] = await Promise.all([
        import('../../agents/policy.js'),
        import('../../agents/rollout.js'),
        import('../../envs/tau_bench/db.js'),
        import('../../envs/index.js'),
      ]);
      if (o.tauBenchDir) setDataDir(o.tauBenchDir);
      if (o.bfclDir) agents.setBfclDataDir(o.bfclDir);
      const family = agents.getEnv(o.env);
      if (!family)
        throw new InvalidArgumentError(
          `unknown environment "${o.env}" (known: ${agents
            .listEnvs()
            .map((e) => e.name)
            .join(', ')})`,
        );
      let jobs: { id: string; group: string; env: string; options: Record<string, unknown> }[];
      let user: Awaited<ReturnType<typeof userFactory>>;
      if (o.env === 'tau_bench') {
        for (const [flag, v] of [
          ['--category', o.category],
          ['--entries', o.entries],
          ['--mode', o.mode],
          ['--max-steps-per-turn', o.maxStepsPerTurn],
        ] as const)
          if (v !== undefined) throw new InvalidArgumentError(`${flag} is a bfcl_multi_turn option`);
        if (o.bfclDir !== undefined) throw new InvalidArgumentError('--bfcl-dir is a bfcl_multi_turn option');
        if (!o.userModel && !o.userBaseUrl) {
          const given = givenFlags(cmd, USER_SIM_FLAGS);
          if (given.length) throw new InvalidArgumentError(`${given.join(', ')} set the user simulator: they need --user-model and --user-base-url`);
        }
        if (!o.domain) throw new InvalidArgumentError('tau_bench rollouts need --domain (airline or retail)');
        if (!agents.TAU_DOMAIN_NAMES.includes(o.domain as never))
          throw new InvalidArgumentError(`--domain must be one of ${agents.TAU_DOMAIN_NAMES.join(', ')}`);
        const domain = o.domain;
        const count = agents.loadTasks(domain as never).length;
        const tasks = o.tasks ?? [...Array(count).keys()];
        const bad = tasks.find((t) => t >= count);
        if (bad !== undefined) throw new InvalidArgumentError(`task ${bad} is out of range: ${domain} has ${count} test tasks`);
        user = await userFactory({ ...o, concurrency: o.concurrency });
        if (!user) throw new InvalidArgumentError('tau_bench rollouts need a user simulator: --user-model and --user-base-url');
        jobs = tasks.flatMap((t) =>
          Array.from({ length: o.trials }, (_, k) => ({
            id: `${domain}-${t}-${k}`,
            group: `${domain}-${t}`,
            env: o.env,
            options: {
              domain,
              task_index: t,
              ...(o.maxSteps ? { max_steps: o.maxSteps } : {}),
              ...(o.firstToolCallOnly ? { first_tool_call_only: true } : {}),
            },
          })),
        );
      } else if (o.env === 'bfcl_multi_turn') {
        for (const [flag, v] of [
          ['--domain', o.domain],
          ['--tasks', o.tasks],
          ['--max-steps', o.maxSteps],
          ['--first-tool-call-only', o.firstToolCallOnly],
          ['--user-model', o.userModel],
          ['--user-base-url', o.userBaseUrl],
          ['--tau-bench-dir', o.tauBenchDir],
          ...givenFlags(cmd, USER_SIM_FLAGS).map((f) => [f, true] as const),
        ] as const)
          if (v !== undefined)
            throw new InvalidArgumentError(`${flag} is not a bfcl_multi_turn option${flag.startsWith('--user') ? " (BFCL's user turns are fixed)" : ''}`);
        const cat = o.category;
        if (!cat || !(agents.BFCL_CATEGORIES as readonly string[]).includes(cat))
          throw new InvalidArgumentError(`bfcl_multi_turn rollouts need --category (one of ${agents.BFCL_CATEGORIES.join(', ')})`);
        if (o.mode !== undefined && o.mode !== 'fc' && o.mode !== 'prompting') throw new InvalidArgumentError('--mode must be fc or prompting');
        const entries = agents.loadBfclCategory(cat as never);
        const picked = o.entries ?? [...entries.keys()];
        const bad = picked.find((i) => i >= entries.length);
        if (bad !== undefined) throw new InvalidArgumentError(`entry ${bad} is out of range: ${cat} has ${entries.length} entries`);
        user = undefined;
        jobs = picked.flatMap((i) =>
          Array.from({ length: o.trials }, (_, k) => ({
            id: `${entries[i]!.id}-${k}`,
            group: entries[i]!.id,
            env: o.env,
            options: {
              entry_id: entries[i]!.id,
              ...(o.mode ? { mode: o.mode } : {}),
              ...(o.maxStepsPerTurn ? { max_steps_per_turn: o.maxStepsPerTurn } : {}),
            },
          })),
        );
      } else throw new InvalidArgumentError(`env rollout drives tau_bench and bfcl_multi_turn episodes, not ${o.env}`);
      const policy = new ChatPolicy(
        await chatClient({
          model: o.policyModel,
          baseUrl: o.policyBaseUrl,
          apiKeyEnv: o.policyApiKeyEnv,
          timeoutMs: o.policyTimeoutMs,
          concurrency: o.concurrency,
        }),
        {
          model: o.policyModel,
          ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
          ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
        },
      );
      const out = o.output ? createWriteStream(o.output) : process.stdout;
      const steps = o.stepsOutput ? createWriteStream(o.stepsOutput) : undefined;
      const ac = new AbortController();
      process.once('SIGINT', () => ac.abort(new Error('SIGINT')));
      process.once('SIGTERM', () => ac.abort(new Error('SIGTERM')));
      let n = 0;
      let sum = 0;
      let failed = 0;
      for await (const rec of runRollouts(jobs, { policy, deps: user ? { user } : {}, concurrency: o.concurrency, signal: ac.signal })) {
        await writeLine(out, JSON.stringify(rec));
        if (steps) for (const s of stepRecords(rec)) await writeLine(steps, JSON.stringify(s));
        n++;
        if (rec.reward === null) failed++;
        else sum += rec.reward;
      }
      for (const s of [out, steps]) if (s && s !== process.stdout) await new Promise<void>((r) => (s as NodeJS.WritableStream).end(r));
      const ok = n - failed;
      process.stderr.write(`arbiter env rollout: ${n} episodes, ${failed} failed, mean reward ${ok ? (sum / ok).toFixed(4) : 'n/a'}\n`);
    } catch (e) {
      if (e instanceof InvalidArgumentError) {
        process.stderr.write(`arbiter: ${e.message}\n`);
        process.exit(EXIT.USAGE);
      }
      die(e);
    }
  });

  env
    .command('tools')
    .description("print an environment's tool schemas and system prompt as JSON")
    .option('--env <name>', 'environment: tau_bench or bfcl_multi_turn', 'tau_bench')
    .option('--domain <name>', 'tau_bench: domain, airline or retail')
    .option('--entry-id <id>', 'bfcl_multi_turn: an entry id, e.g. multi_turn_miss_func_0 (the tools at its start)')
    .option('--mode <mode>', 'bfcl_multi_turn: fc (default) or prompting')
    .option('--tau-bench-dir <dir>', "folder holding tau-bench's airline/ and retail/ data")
    .option('--bfcl-dir <dir>', "folder holding BFCL's multi_turn/ data")
    .action(async (o: { env: string; domain?: string; entryId?: string; mode?: string; tauBenchDir?: string; bfclDir?: string }) => {
      try {
        const [agents, { setDataDir }] = await Promise.all([import('../../envs/index.js'), import('../../envs/tau_bench/db.js')]);
        if (o.tauBenchDir) setDataDir(o.tauBenchDir);
        if (o.bfclDir) agents.setBfclDataDir(o.bfclDir);
        const family = agents.getEnv(o.env);
        if (!family) throw new InvalidArgumentError(`unknown environment "${o.env}"`);
        for (const [flag, v, own] of [
          ['--tau-bench-dir', o.tauBenchDir, 'tau_bench'],
          ['--domain', o.domain, 'tau_bench'],
          ['--bfcl-dir', o.bfclDir, 'bfcl_multi_turn'],
          ['--entry-id', o.entryId, 'bfcl_multi_turn'],
          ['--mode', o.mode, 'bfcl_multi_turn'],
        ] as const)
          if (v !== undefined && o.env !== own) throw new InvalidArgumentError(`${flag} is a ${own} option, not a ${o.env} one`);
        const options: Record<string, unknown> =
          o.env === 'bfcl_multi_turn'
            ? { ...(o.entryId !== undefined ? { entry_id: o.entryId } : {}), ...(o.mode !== undefined ? { mode: o.mode } : {}) }
            : o.env === 'tau_bench'
              ? { domain: o.domain }
              : {};
        process.stdout.write(JSON.stringify(family.tools(options), null, 2) + '\n');
      } catch (e) {
        if (
          e instanceof InvalidArgumentError ||
          (e as Error)?.name === 'EnvOptionError' ||
          (e as Error)?.name === 'TauDataError' ||
          (e as Error)?.name === 'BfclDataError'
        ) {
          process.stderr.write(`arbiter: ${(e as Error).message}\n`);
          process.exit(EXIT.USAGE);
        }
        die(e);
      }
    });
}
