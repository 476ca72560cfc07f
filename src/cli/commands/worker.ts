// `arbiter worker`: grade the jobs that `arbiter serve --queue` puts in Redis, for the graders
// loaded here, on any number of machines (docs/queue.md). SIGTERM/SIGINT finish the active jobs,
// then exit; a second signal exits at once.
import { InvalidArgumentError, type Command } from 'commander';
import { Services } from '../../core/services.js';
import { DEFAULT_DEADLINE_MS, DEFAULT_LOCK_MS, DEFAULT_STALLED_MS } from '../../queue/protocol.js';
import { die, EXIT } from '../exit.js';
import { addImageOptions, imageSources } from '../image-options.js';
import { startGraders, VERBOSE_OPTION } from '../startup.js';
import { positiveInt } from './score.js';

const collect = (v: string, prev: string[]) => [...prev, v];

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}

interface WorkerOpts {
  queue: string;
  grader: string[];
  prefix: string;
  jobs?: number;
  lockMs: number;
  stalledMs: number;
  deadlineMs: number;
  maxStalled: number;
  heartbeatMs: number;
  name?: string;
  events?: boolean;
  probeEndpoints: boolean;
  unsafeNoSandbox?: boolean;
  imageDir?: string[];
  imageUrl?: string[];
  verbose?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('worker')
    .description('grade jobs from the Redis queue of `arbiter serve --queue` (scale out over machines)')
    .requiredOption('--queue <url>', 'the Redis the servers use: redis://HOST:PORT[/DB] (rediss:// for TLS)')
    .requiredOption(
      '-g, --grader <[name=]file>',
      "grader config to serve; repeat for several. A server's job is taken only by workers that loaded exactly the same config (same arbiter version)",
      collect,
      [],
    )
    .option('--prefix <p>', 'Redis key prefix shared with the servers', 'arbiter')
    .option('-j, --jobs <n>', 'jobs graded at once per grader (default: 2 x cores)', positiveInt)
    .option(
      '--lock-ms <ms>',
      'job lock, renewed every quarter of it: a worker silent this long (dead, cut off from Redis) loses its jobs to other workers',
      positiveInt,
      DEFAULT_LOCK_MS,
    )
    .option('--stalled-ms <ms>', 'how often this worker looks for jobs whose worker died', positiveInt, DEFAULT_STALLED_MS)
    .option(
      '--deadline-ms <ms>',
      'the shortest serve --deadline-ms of the servers it works for: refused unless stalled-ms + max(lock-ms, stalled-ms) is under half of it',
      positiveInt,
      DEFAULT_DEADLINE_MS,
    )
    .option('--max-stalled <n>', 'times a job may be abandoned by a dying worker and retried before it fails', nonNegativeInt, 2)
    .option('--heartbeat-ms <ms>', 'how often this worker advertises itself (servers count it live for 5 intervals)', positiveInt, 2000)
    .option('--name <name>', "prefix of this worker's id (default: the host name)")
    .option('--events', 'print one JSON line per job event on stdout (active, completed, stalled, lock_lost, ...)')
    .option('--no-probe-endpoints', 'serve model graders without first checking that their endpoints accept connections')
    .option('--unsafe-no-sandbox', 'run code graders without bubblewrap (only for trusted code)')
    .option(...VERBOSE_OPTION);
  // the jobs' model graders read images on this machine: the same operator flags as score and serve
  addImageOptions(cmd)
    .addHelpText(
      'after',
      `
Each grader's jobs live in their own queue, named after the grader's fingerprint (its config and
the arbiter version), so a worker never grades a job with another grader than the server meant.
A grader this machine cannot run (code without a working sandbox, a model endpoint that refuses
connections) is not served; /healthz and /metrics on the server show live workers per grader.

Examples:
  arbiter worker --queue redis://10.0.0.5:6379 --grader gsm8k=graders/gsm8k.json
  arbiter worker --queue redis://10.0.0.5:6379/1 --grader code.json --jobs 32
  arbiter worker --queue redis://10.0.0.5:6379 --grader vlm-judge.json --image-dir /data/screens`,
    )
    .action(async (o: WorkerOpts) => {
      try {
        const [{ startQueueWorker, parseRedisUrl }, { loadGraderSpecs }] = await Promise.all([
          import('../../queue/index.js'),
          import('../../server/grader-set.js'),
        ]);
        try {
          parseRedisUrl(o.queue);
        } catch (e) {
          process.stderr.write(`arbiter: --queue: ${(e as Error).message}\n`);
          process.exit(EXIT.USAGE);
        }
        const graders = await loadGraderSpecs(o.grader);
        const services = new Services({ unsafeNoSandbox: Boolean(o.unsafeNoSandbox), images: imageSources(o) });
        const log = (m: string) => process.stderr.write(`arbiter worker: ${m}\n`);
        // jobs are graded under their deadline: cpu_heavy graders' worker threads start now
        await startGraders([...graders.values()], services, { verbose: o.verbose === true, deadline: true, prefix: 'arbiter worker' });
        let worker: import('../../queue/consumer.js').QueueWorker;
        try {
          worker = await startQueueWorker({
            url: o.queue,
            prefix: o.prefix,
            graders,
            services,
            ...(o.jobs ? { jobs: o.jobs } : {}),
            lockMs: o.lockMs,
            stalledMs: o.stalledMs,
            deadlineMs: o.deadlineMs,
            maxStalled: o.maxStalled,
            heartbeatMs: o.heartbeatMs,
            ...(o.name ? { name: o.name } : {}),
            probeEndpoints: o.probeEndpoints,
            onEvent: (e) => {
              if (o.events) process.stdout.write(JSON.stringify(e) + '\n');
              if (e.event === 'refused') log(`not serving grader "${e.grader}": ${e.message}`);
              else if (e.event === 'error' && !o.events) log(`error: ${e.message}`);
            },
          });
        } catch (e) {
          const m = (e as Error).message;
          if (m.startsWith('cannot reach Redis') || e instanceof RangeError) {
            log(m);
            process.exit(EXIT.USAGE);
          }
          throw e;
        }
        if (worker.serving.size === 0) {
          log('no grader can be served on this machine; exiting');
          await worker.close();
          await services.close();
          process.exit(EXIT.USAGE);
        }
        const w = worker;
        let stopping = false;
        const onSignal = (sig: NodeJS.Signals) => {
          if (stopping) {
            log(`${sig} again, exiting now`);
            process.exit(1);
          }
          stopping = true;
          log(`${sig} received, finishing active jobs`);
          void (async () => {
            await w.close();
            await services.close();
            log('stopped');
            process.exit(0);
          })();
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
        log(`${w.id} serving ${[...w.serving].map(([n, q]) => `${n} (${q})`).join(', ')} from ${o.queue.replace(/\/\/([^@/]*):[^@/]*@/, '//$1:***@')}`);
      } catch (e) {
        die(e);
      }
    });
}
