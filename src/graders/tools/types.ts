// Shared shapes for tool-call grading: a parsed call, a BFCL accepted answer, a function schema.

/** One tool call made by the model: a function name and its arguments. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

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

/** `syntax`: Python would reject it too; `unsupported`: valid Python the parser does not model; `limit`: too large or deep. */
export type ParseErrorKind = 'syntax' | 'unsupported' | 'limit';

/** For `unsupported`: which construct (BFCL's AST decoder drops some of them and keeps others). */
export type UnsupportedConstruct = 'subscript' | 'bytes' | 'complex' | 'escape' | 'starred' | 'expression';

export class ParseError extends Error {
  constructor(
    message: string,
    readonly kind: ParseErrorKind = 'syntax',
    readonly construct?: UnsupportedConstruct,
  ) {
    super(message);
  }
}
