// `arbiter serve`: serve rewards over HTTP in every wire format of src/server/formats/index.ts
// (OpenAI graders API, OpenRLHF /get_reward, slime /reward, NeMo-Gym /verify, batch /v1/score,
// /healthz, /metrics, …; its help lists each format's routes) from one or more named graders,
// grading in-process or, with --queue, through Redis by `arbiter worker` processes.
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_MAX_JSON_DEPTH } from '../../core/json.js';
import { Services } from '../../core/services.js';
import { formatStartup } from '../../core/startup.js';
import type { WireFormat } from '../../server/context.js';
import { DEFAULT_EOS_TOKENS, DEFAULT_MAX_QUEUE, REWARD_FORMATS, type RewardFormat } from '../../server/options.js';
import { die, EXIT } from '../exit.js';
import { positiveInt } from './score.js';
import { addImageOptions, imageSources } from '../image-options.js';
import { stopWithParent, restartWithNodeFlags, SERVE_NODE_FLAGS } from '../node-flags.js';

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

const collect = (v: string, prev: string[]) => [...prev, v];

function rewardFormat(v: string): RewardFormat {
  if (!(REWARD_FORMATS as readonly string[]).includes(v)) throw new InvalidArgumentError(`must be one of ${REWARD_FORMATS.join(', ')}`);
  return v as RewardFormat;
}

interface ServeOpts {
  grader: string[];
  defaultGrader?: string;
  host: string;
  port: number;
  token?: string;
  insecure?: boolean;
  allowInlineGraders?: boolean;
  inlineAllowNetwork: string[];
  bodyLimit: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  maxJsonDepth: number;
  deadlineMs: number;
  concurrency?: number;
  maxQueue: number;
  queue?: string;
  queuePrefix?: string;
  queueBatch?: number;
  queueMaxDepth?: number;
  maxBatch?: number;
  fallbackReward: number;
  rewardFormat: RewardFormat;
  eosToken: string[];
  defaultEos: boolean;
  logLevel?: string;
  unsafeNoSandbox?: boolean;
  imageDir: string[];
  imageUrl: string[];
  monitorWindow: number;
  sandboxApi?: boolean;
  sandboxApiMaxTimeoutS?: number;
  sandboxApiMaxMemoryMb?: number;
  sandboxApiMaxOutputBytes?: number;
}

/** The help's list of endpoints, from the formats' declarations. */
function endpoints(formats: readonly WireFormat[]): string {
  const pad = ' '.repeat(18);
  const block = (f: WireFormat) => {
    const lines = [`  ${f.name.padEnd(15)} ${f.summary}`];
    let cur = '';
    for (const r of f.routes.map((x) => `${x.method} ${x.path}`)) {
      if (cur && cur.length + r.length > 80) {
        lines.push(pad + cur.slice(0, -1));
        cur = '';
      }
      cur += `${r}, `;
    }
    lines.push(pad + cur.slice(0, -2));
    return lines.join('\n');
  };
  return formats.map(block).join('\n');
}

export async function register(program: Command, argv: readonly string[] = []): Promise<void> {
  // the formats (and the server code they import) load for `arbiter serve` itself, not for other commands' help
  const formats = argv[0] === 'serve' ? (await import('../../server/formats/index.js')).FORMATS : undefined;
  const cmd = program
    .command('serve')
    .description('serve rewards over HTTP to RL trainers (OpenAI graders API, OpenRLHF, batch scoring)')
    .requiredOption(
      '-g, --grader <[name=]file>',
      'grader config; repeat to serve several, chosen per request by "grader": "name" (default name: the config\'s own name)',
      collect,
      [],
    )
    .option('--default-grader <name>', 'grader used when a request names none (default: the first --grader)')
    .option('--host <addr>', 'address to bind (non-loopback needs --token or --insecure)', '127.0.0.1')
    .option('-p, --port <n>', 'port (0 = any free port)', port, 8000)
    .option('--token <token>', 'require "Authorization: Bearer <token>" (default: $ARBITER_TOKEN)')
    .option('--insecure', 'allow a non-loopback --host without a token')
    .option(
      '--allow-inline-graders',
      'accept grader config objects in /v1/graders/run (pure and sandboxed-code graders; never unsafe switches or server secrets)',
    )
    .option(
      '--inline-allow-network <url>',
      'URL prefix that inline judges / reward models may call, e.g. http://127.0.0.1:8001/v1 (repeatable; default: none)',
      collect,
      [],
    )
    .option('--body-limit <bytes>', 'largest request body accepted', positiveInt, 8 * 1024 * 1024)
    .option('--headers-timeout-ms <ms>', "a request's headers must arrive within this, else 408 and close", positiveInt, 10_000)
    .option('--request-timeout-ms <ms>', 'a whole request (headers and body) must arrive within this, else 408 and close', positiveInt, 30_000)
    .option('--keep-alive-timeout-ms <ms>', 'idle keep-alive connections are closed after this', positiveInt, 30_000)
    .option('--max-connections <n>', 'open connections at most; further ones are closed on accept', positiveInt, 1024)
    .option('--max-json-depth <n>', 'deepest JSON nesting accepted in a request body (deeper: 400 limit_exceeded)', positiveInt, DEFAULT_MAX_JSON_DEPTH)
    .option('--deadline-ms <ms>', 'per-request deadline; unfinished samples get timeout results', positiveInt, 30_000)
    .option(
      '-c, --concurrency <n>',
      'samples graded at once across all requests (default 256; with --queue: samples handed to the queue at once, default 8192)',
      positiveInt,
    )
    .option('--max-queue <n>', 'samples that may wait for a slot before requests get 429', positiveInt, DEFAULT_MAX_QUEUE)
    .option('--max-batch <n>', 'most samples in one request (default: min(4096, concurrency + max-queue))', positiveInt)
    .option('--fallback-reward <x>', 'reward for samples that could not be graded (/get_reward, /reward, /verify, /v1/graders/run)', finite, 0)
    .option(
      '--reward-format <f>',
      'what POST /reward (slime) answers: number (a bare float) or dict ({reward, valid, ...}); ?format= overrides',
      rewardFormat,
      'number' as RewardFormat,
    )
    .option('--eos-token <tok>', 'token to strip from the end of OpenRLHF queries (repeatable; adds to the defaults)', collect, [])
    .option('--no-default-eos', 'do not strip the default EOS tokens, only --eos-token ones')
    .option(
      '--monitor-window <n>',
      'recent grades per grader kept for the reward-hacking monitors in /metrics (0 = off)',
      (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
        return n;
      },
      2048,
    )
    .option('--queue <url>', 'grade through Redis by `arbiter worker` processes instead of in-process: redis://HOST:PORT[/DB] (docs/queue.md)')
    .option('--queue-prefix <p>', 'Redis key prefix shared with the workers (needs --queue)', 'arbiter')
    .option('--queue-batch <n>', 'samples per queue job (default: sized per grader to about 50 ms of grading, at most 512)', positiveInt)
    .option('--queue-max-depth <n>', 'samples waiting in Redis for workers (all servers) before requests get 429 (default 16384)', positiveInt)
    .option('--log-level <level>', 'log to stdout as JSON at this level (fatal, error, warn, info, debug)')
    .option('--unsafe-no-sandbox', 'run code graders without bubblewrap (only for trusted code)')
    .option(
      '--sandbox-api',
      'serve the SandboxFusion-compatible POST /run_code and GET /v1/ping: runs request-supplied code in the sandbox (refused with 403 under --unsafe-no-sandbox)',
    )
    .option(
      '--sandbox-api-max-timeout-s <s>',
      'longest run_timeout and compile_timeout a /run_code request gets (longer ones are clamped; needs --sandbox-api)',
      (v: string) => {
        const n = Number(v);
        if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number of seconds');
        return n;
      },
    )
    .option(
      '--sandbox-api-max-memory-mb <mb>',
      'largest memory_limit_MB a /run_code request gets, and its limit when it sets none (default 1024; needs --sandbox-api)',
      positiveInt,
    )
    .option('--sandbox-api-max-output-bytes <n>', "cap on a /run_code run's stdout and on its stderr, each (default 8 MiB; needs --sandbox-api)", positiveInt)
    .addHelpText(
      'after',
      `
Endpoints, by wire format:
${formats ? endpoints(formats) : '  (run "arbiter serve --help")'}

SIGTERM/SIGINT finish in-flight requests, then exit.

Default EOS tokens: ${DEFAULT_EOS_TOKENS.join(' ')}

Examples:
  arbiter serve --grader gsm8k=graders/gsm8k.json --grader math=graders/math.json --port 8000
  ARBITER_TOKEN=secret arbiter serve --grader g.json --host 0.0.0.0
  arbiter serve --grader g.json --queue redis://10.0.0.5:6379/0   # and on each grading machine:
  arbiter worker --queue redis://10.0.0.5:6379/0 --grader g.json`,
    )
    .action(async (o: ServeOpts, cmd: Command) => {
      try {
        // the server runs under V8 flags of its own (a larger young generation: node-flags.ts)
        if (await restartWithNodeFlags(SERVE_NODE_FLAGS)) return;
        stopWithParent();
        // options that only a mode they need reads: refused without it rather than ignored
        const needs: [string, boolean, string][] = [
          ['--sandbox-api-max-timeout-s', o.sandboxApiMaxTimeoutS !== undefined, '--sandbox-api'],
          ['--sandbox-api-max-memory-mb', o.sandboxApiMaxMemoryMb !== undefined, '--sandbox-api'],
          ['--sandbox-api-max-output-bytes', o.sandboxApiMaxOutputBytes !== undefined, '--sandbox-api'],
          ['--queue-prefix', cmd.getOptionValueSource('queuePrefix') === 'cli', '--queue'],
        ];
        for (const [flag, given, mode] of needs) {
          if (given && !(mode === '--queue' ? o.queue : o.sandboxApi)) {
            process.stderr.write(`arbiter: ${flag} needs ${mode}\n`);
            process.exit(EXIT.USAGE);
          }
        }
        // the server stack (fastify, prom-client) loads only when serving, not for other commands
        const [{ createServer }, { loadGraderSpecs }, { closeOnSignals }] = await Promise.all([
          import('../../server/app.js'),
          import('../../server/grader-set.js'),
          import('../../server/shutdown.js'),
        ]);
        const graders = await loadGraderSpecs(o.grader);
        const token = o.token ?? (process.env.ARBITER_TOKEN || undefined);
        const eosTokens = [...(o.defaultEos ? DEFAULT_EOS_TOKENS : []), ...o.eosToken];
        const services = new Services({ unsafeNoSandbox: Boolean(o.unsafeNoSandbox), images: imageSources(o) });
        let executor: import('../../server/grade-runner.js').ExecutorFactory | undefined;
        if (o.queue) {
          const { queueExecutor, checkRedis, parseRedisUrl } = await import('../../queue/index.js');
          let target: import('../../queue/redis.js').RedisTarget;
          try {
            target = parseRedisUrl(o.queue);
          } catch (e) {
            process.stderr.write(`arbiter: --queue: ${(e as Error).message}\n`);
            process.exit(EXIT.USAGE);
          }
          try {
            await checkRedis(target);
          } catch (e) {
            process.stderr.write(`arbiter serve: ${(e as Error).message}\n`);
            process.exit(EXIT.USAGE);
          }
          executor = queueExecutor({
            url: o.queue,
            ...(o.queuePrefix ? { prefix: o.queuePrefix } : {}),
            ...(o.queueBatch ? { batch: o.queueBatch } : {}),
            ...(o.queueMaxDepth ? { maxDepth: o.queueMaxDepth } : {}),
          });
        } else if (o.queueBatch || o.queueMaxDepth) {
          process.stderr.write('arbiter: --queue-batch and --queue-max-depth need --queue\n');
          process.exit(EXIT.USAGE);
        }
        let server: ReturnType<typeof createServer>;
        try {
          server = createServer({
            graders,
            ...(o.defaultGrader ? { defaultGrader: o.defaultGrader } : {}),
            ...(token ? { token } : {}),
            insecure: Boolean(o.insecure),
            allowInlineGraders: Boolean(o.allowInlineGraders),
            inlineAllowNetwork: o.inlineAllowNetwork,
            bodyLimit: o.bodyLimit,
            headersTimeoutMs: o.headersTimeoutMs,
            requestTimeoutMs: o.requestTimeoutMs,
            keepAliveTimeoutMs: o.keepAliveTimeoutMs,
            maxConnections: o.maxConnections,
            maxJsonDepth: o.maxJsonDepth,
            deadlineMs: o.deadlineMs,
            concurrency: o.concurrency ?? (o.queue ? 8192 : 256),
            maxQueue: o.maxQueue,
            ...(o.maxBatch ? { maxBatch: o.maxBatch } : {}),
            fallbackReward: o.fallbackReward,
            rewardFormat: o.rewardFormat,
            eosTokens,
            monitorWindow: o.monitorWindow,
            ...(o.sandboxApi
              ? {
                  sandboxApi: {
                    ...(o.sandboxApiMaxTimeoutS ? { maxRunTimeoutS: o.sandboxApiMaxTimeoutS, maxCompileTimeoutS: o.sandboxApiMaxTimeoutS } : {}),
                    ...(o.sandboxApiMaxMemoryMb ? { maxMemoryMb: o.sandboxApiMaxMemoryMb } : {}),
                    ...(o.sandboxApiMaxOutputBytes ? { maxOutputBytes: o.sandboxApiMaxOutputBytes } : {}),
                  },
                }
              : {}),
            services,
            ...(o.logLevel ? { logger: o.logLevel } : {}),
            ...(executor ? { executor } : {}),
          });
        } catch (e) {
          if (e instanceof RangeError) {
            process.stderr.write(`arbiter: ${e.message}\n`);
            process.exit(EXIT.USAGE);
          }
          throw e;
        }
        // start-up before the first request (never inside a request's deadline or a timeout_ms)
        process.stderr.write(`arbiter serve: ${formatStartup(await server.warm())}\n`);
        let url: string;
        try {
          url = await server.listen({ host: o.host, port: o.port });
        } catch (e) {
          process.stderr.write(`arbiter: ${(e as Error).message}\n`);
          process.exit(EXIT.USAGE);
        }
        closeOnSignals(
          {
            ...server,
            close: async () => {
              await server.close();
              await services.close();
            },
          },
          { graceMs: o.deadlineMs + 5_000 },
        );
        const names = server.graders.names().map((n) => (n === server.graders.defaultName ? `${n} (default)` : n));
        const via = o.queue ? ` through the queue at ${o.queue.replace(/\/\/([^@/]*):[^@/]*@/, '//$1:***@')}` : '';
        process.stderr.write(`arbiter serve: listening on ${url} with graders ${names.join(', ')}${via}${token ? ' (token required)' : ''}\n`);
      } catch (e) {
        die(e);
      }
    });
  addImageOptions(cmd);
}
