// Registers every built-in grader type. Adding a type = one file + one line here.
import { registerGraderType, getGraderType, type GraderType, type BaseConfig } from '../core/registry.js';
import { gate } from './composite/gate.js';
import { multi } from './composite/multi.js';
import { stringCheck } from './string/string-check.js';
import { threads } from './composite/threads.js';
import { code } from './code/code.js';
import { pythonGrader } from './code/python-grader.js';
import { ifeval } from './ifeval/grader.js';
import { toolCall } from './tools/grader.js';
import { mathGrader } from './math/grader.js';
import { format } from './format/format.js';
import { textSimilarity } from './similarity/text-similarity.js';
import { length } from './length/length.js';
import { repetition } from './length/repetition.js';
import { judgeGraderTypes } from '../judges/index.js';
import { tauBench } from './tau_bench/grader.js';

const builtins: GraderType<any>[] = [
  stringCheck,
  code,
  pythonGrader,
  ifeval,
  toolCall,
  multi,
  gate,
  threads,
  mathGrader,
  format,
  textSimilarity,
  length,
  repetition,
  tauBench,
  ...judgeGraderTypes,
];

for (const t of builtins as GraderType<BaseConfig>[]) if (!getGraderType(t.type)) registerGraderType(t);
