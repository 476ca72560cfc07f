// src/envs/bfcl_multi_turn/apis/: the simulated BFCL multi-turn APIs (classes, the episode environment, the executor of BFCL call strings, initial_config reading, the long-context loader and its export script).
export { BfclEnv, type EnvOptions, type LongContextData, LONG_CONTEXT_KEYS, MissingData, WorkBudgetExceeded } from './api.js';
export { API_CLASSES, Side, instanceName, UNSIMULATED } from './executor.js';
export { readConfigObject, readConfigText } from './config.js';
export { toolCallString, BadToolCall } from './calls.js';
export { loadLongContext, LONG_CONTEXT_ENV, LONG_CONTEXT_EXPORT } from './long-context.js';
export { PyException, EnvLimit, Unsupported } from '../../../py/errors.js';
export { pyRepr, pyStr, jsonDumps, floatRepr } from '../../../py/format.js';
export { loads as pyJsonLoads } from '../../../py/json.js';
export { PyRandom } from '../../../py/random.js';
export { PyDict, PyTuple, PySet, pyEq, type PyValue } from '../../../py/values.js';
