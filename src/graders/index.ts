// Registers every built-in grader type. Adding a type = one file + one line here.
import { registerGraderType, getGraderType, type GraderType, type BaseConfig } from '../core/registry.js';
import { gate } from './composite/gate.js';
import { multi } from './composite/multi.js';
import { stringCheck } from './string/string-check.js';
import { mathGrader } from './math/grader.js';

const builtins: GraderType<any>[] = [
  stringCheck,
  multi,
  gate,
  mathGrader,
];

for (const t of builtins as GraderType<BaseConfig>[]) if (!getGraderType(t.type)) registerGraderType(t);
