// Representative uses of arbiter's public entry points, resolved through package.json "exports"
// exactly as a user's package resolves them. Type-checked only (never run): a wrong export, a
// declaration that does not resolve, or a changed signature fails `npm run typecheck`.
import { expectTypeOf } from 'vitest';
import {
  type ERROR_KINDS,
  type ErrorKind,
  type Grader,
  type GradeInput,
  type Result,
  grade,
  gradeStream,
  isErrorKind,
  loadGrader,
  loadGraderFile,
  makeGrader,
  registerGraderType,
  scoreFile,
  Services,
  verifyMath,
  type GraderType,
  type Summary,
  graderSchema,
  PURE,
} from 'arbiter';
import 'arbiter/graders';
import { SUITES, type EvalReport, type Suite, type SuiteOptions } from 'arbiter/eval';
import { createServer, type ArbiterServer, type ServerOptions } from 'arbiter/server';
import { queueExecutor, startQueueWorker, type QueueWorker } from 'arbiter/queue';
import { z } from 'zod';

// the library: load a grader, grade one sample, read the result
const grader: Grader = loadGrader({ type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.answer}}', operation: 'eq' });
const result = await grade(grader, { item: { answer: '42' }, sample: { output_text: '42' } });
expectTypeOf(result).toEqualTypeOf<Result>();
expectTypeOf(result.score).toEqualTypeOf<number | null>();
expectTypeOf(result.valid).toEqualTypeOf<boolean>();
if (!result.valid && result.error) expectTypeOf(result.error.kind).toEqualTypeOf<ErrorKind>();
expectTypeOf(grade).parameter(0).toEqualTypeOf<Grader>();
expectTypeOf(loadGraderFile).returns.resolves.toEqualTypeOf<Grader>();

// the error catalogue is a const object keyed by kind, and isErrorKind narrows
expectTypeOf<keyof typeof ERROR_KINDS>().toEqualTypeOf<ErrorKind>();
const k: unknown = 'timeout';
if (isErrorKind(k)) expectTypeOf(k).toEqualTypeOf<ErrorKind>();
expectTypeOf<'no_such_kind'>().not.toMatchTypeOf<ErrorKind>();

// streams and files
const inputs: GradeInput[] = [{ item: { answer: '1' }, sample: { output_text: '1' } }];
for await (const r of gradeStream(grader, inputs, { concurrency: 4 })) expectTypeOf(r).toMatchTypeOf<Result>();
const summary = await scoreFile({ grader, input: 'in.jsonl', output: 'out.jsonl' });
expectTypeOf(summary).toEqualTypeOf<Summary>();
const services = new Services();
await grade(grader, inputs[0]!, { services });
await services.close();

// a grader type of one's own
const alwaysHalf: GraderType<{ type: string; value: number }> = {
  type: 'always_half',
  summary: 'scores every sample the configured value',
  schema: graderSchema({ value: z.number() }),
  capabilities: PURE,
  build: (cfg) => () => ({ score: cfg.value, reason: `always ${cfg.value}` }),
};
registerGraderType(alwaysHalf);
// @ts-expect-error a type must declare what it can reach
registerGraderType({ type: 'x', summary: 'x', schema: graderSchema({}), build: () => () => ({ score: 1 }) });
expectTypeOf(makeGrader).returns.toEqualTypeOf<Grader>();

// math as a function
expectTypeOf(verifyMath('1/2', '0.5').score).toEqualTypeOf<number | null>();

// the server
const options: ServerOptions = { graders: { default: grader } };
const server: ArbiterServer = createServer(options);
expectTypeOf(server.listen).returns.resolves.toBeString();
expectTypeOf(server.close).returns.resolves.toBeVoid();

// the queue: the server's executor, and a worker
const withQueue = createServer({ graders: new Map([['g', grader]]), executor: queueExecutor({ url: 'redis://127.0.0.1:6379' }) });
expectTypeOf(withQueue).toEqualTypeOf<ArbiterServer>();
expectTypeOf(startQueueWorker).returns.resolves.toEqualTypeOf<QueueWorker>();

// eval suites
const suite: Suite | undefined = SUITES.find((s) => s.name === 'prmbench');
if (suite) expectTypeOf(suite.run).returns.resolves.toEqualTypeOf<EvalReport>();
expectTypeOf<SuiteOptions['files']>().toEqualTypeOf<string[]>();
