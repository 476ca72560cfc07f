// Registers every built-in grader type (the library, the server, workers). Adding a type = one
// file + one line here + its line in ./builtins.ts (what the command line loads on demand).
import { registerGraderType, getGraderType, type GraderType, type BaseConfig } from '../core/registry.js';
import { gate } from './composite/gate.js';
import { multi } from './composite/multi.js';
import { stringCheck } from './string_check/string-check.js';
import { threads } from './composite/threads.js';
import { weightedSum } from './composite/weighted-sum.js';
import { tiers } from './composite/tiers.js';
import { transform } from './composite/transform.js';
import { schedule } from './composite/schedule.js';
import { majorityVote } from './composite/majority-vote.js';
import { random } from './composite/random.js';
import { overlongPenalty } from './composite/overlong.js';
import { code } from './code/code.js';
import { pythonGrader } from './code/python-grader.js';
import { ifeval } from './ifeval/grader.js';
import { toolCall } from './tool_call/grader.js';
import { bfclMultiTurn } from './bfcl_multi_turn/grader.js';
import { mathGrader } from './math/grader.js';
import { format } from './format/format.js';
import { textSimilarity } from './text_similarity/text-similarity.js';
import { length } from './length/length.js';
import { repetition } from './length/repetition.js';
import { judgeGraderTypes } from './judges/index.js';
import { addWorkerRegistrations } from '../workers/grader-pool.js';

// worker threads (threads grader, preemption of cpu_heavy types) load this module to get every type
addWorkerRegistrations(import.meta.url);
import { prm } from './prm/grader.js';
import { tauBench } from './tau_bench/grader.js';

const builtins: GraderType<any>[] = [
  stringCheck,
  code,
  pythonGrader,
  ifeval,
  toolCall,
  bfclMultiTurn,
  multi,
  gate,
  threads,
  weightedSum,
  tiers,
  transform,
  schedule,
  majorityVote,
  random,
  overlongPenalty,
  mathGrader,
  format,
  textSimilarity,
  length,
  repetition,
  tauBench,
  ...judgeGraderTypes,
  prm,
];

for (const t of builtins as GraderType<BaseConfig>[]) if (!getGraderType(t.type)) registerGraderType(t);
