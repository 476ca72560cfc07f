// An OpenAI-style tool call as the BFCL call string it stands for: BFCL's convert_to_function_call,
// `name(k=repr(v),...)` with the arguments read as Python's json.loads reads them (so 5.0 stays a
// float when the arguments are JSON text).
import { pyRepr, pyStr } from '../../../py/format.js';
import { fromJs, loads } from '../../../py/json.js';
import { PyDict, type PyValue } from '../../../py/values.js';

export class BadToolCall extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadToolCall';
  }
}

/** `name(k=repr(v),...)` from a name and arguments (JSON text, an object, or nothing). */
export function toolCallString(name: string, args: unknown): string {
  let value: PyValue;
  if (typeof args === 'string') {
    try {
      value = args.trim() === '' ? new PyDict() : loads(args);
    } catch {
      throw new BadToolCall(`arguments of ${name} are not valid JSON`);
    }
  } else if (args === undefined || args === null) value = new PyDict();
  else value = fromJs(args);
  if (!(value instanceof PyDict)) throw new BadToolCall(`arguments of ${name} must be a JSON object`);
  return `${name}(${value
    .entries()
    .map(([k, v]) => `${pyStr(k)}=${pyRepr(v)}`)
    .join(',')})`;
}
