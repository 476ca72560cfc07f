// The shape of one parsed tool call, and the error raised when none can be read.

/** One tool call made by the model: a function name and its arguments. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** `syntax`: Python would reject it too; `unsupported`: valid Python the parser does not model; `limit`: too large or deep. */
export type ParseErrorKind = 'syntax' | 'unsupported' | 'limit';

/** For `unsupported`: which construct (BFCL's AST decoder drops some of them and keeps others). */
export type UnsupportedConstruct = 'subscript' | 'bytes' | 'complex' | 'escape' | 'starred' | 'expression';

/** The model's text or JSON holds no readable tool call (the message says why). */
export class ParseError extends Error {
  constructor(
    message: string,
    readonly kind: ParseErrorKind = 'syntax',
    readonly construct?: UnsupportedConstruct,
  ) {
    super(message);
  }
}
