// Shared shapes for tool-call grading: a parsed call, a BFCL accepted answer, a function schema.

// A parsed call and its parse error live in the extraction layer (src/extract/tool-calls.ts).
export { ParseError, type ToolCall } from '../../extract/tool-calls.js';

/** BFCL `possible_answer` entry: function name -> parameter -> accepted values (`""` = may be omitted). */
export type AcceptedCall = { name: string; params: Record<string, unknown[]> };

/** A function description in BFCL / OpenAI form (`parameters` is a JSON-schema-like object). */
export interface FunctionSchema {
  name: string;
  parameters?: { type?: string; properties?: Record<string, ParamSchema>; required?: string[] };
}

export interface ParamSchema {
  type?: string;
  items?: ParamSchema;
  [k: string]: unknown;
}
