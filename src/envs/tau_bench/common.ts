// The tools both tau-bench domains share: calculate (restricted arithmetic), think and
// transfer_to_human_agents, each with its own Python module for argument-binding messages.
import { calculate } from './calc.js';
import { contains, iterate, PyError, type PyValue } from '../../py/ops.js';
import { fnSchema, type TauTool } from './tool.js';

const ALLOWED = '0123456789+-*/(). ';

export function calculateTool(pyModule: string): TauTool {
  return {
    name: 'calculate',
    pyClass: 'Calculate',
    pyModule,
    params: ['expression'],
    schema: fnSchema('calculate', 'Evaluate an arithmetic expression and return the result rounded to two decimals.', {
      expression: { type: 'string', description: "The expression, e.g. '2 + 2': numbers, + - * /, parentheses and spaces." },
    }),
    invoke(_db, a) {
      const e: PyValue = a.expression!;
      if (typeof e === 'string') return calculate(e);
      // `all(char in ALLOWED for char in expression)` runs outside the original's try block, then
      // eval() refuses anything that is not a string
      for (const ch of iterate(e)) if (!contains(ALLOWED, ch)) return 'Error: invalid characters in expression';
      throw new PyError('TypeError', 'eval() arg 1 must be a string, bytes or code object');
    },
  };
}

export function thinkTool(pyModule: string): TauTool {
  return {
    name: 'think',
    pyClass: 'Think',
    pyModule,
    params: ['thought'],
    schema: fnSchema('think', 'Write down a thought to reason about the task. Changes nothing and looks nothing up.', {
      thought: { type: 'string', description: 'The thought.' },
    }),
    invoke: () => '',
  };
}

export function transferTool(pyModule: string): TauTool {
  return {
    name: 'transfer_to_human_agents',
    pyClass: 'TransferToHumanAgents',
    pyModule,
    params: ['summary'],
    schema: fnSchema(
      'transfer_to_human_agents',
      'Hand the user over to a human agent with a summary of their issue. Only when the user asks for a human, or when the issue cannot be solved with the available tools.',
      { summary: { type: 'string', description: "A summary of the user's issue." } },
    ),
    invoke: () => 'Transfer successful',
  };
}
