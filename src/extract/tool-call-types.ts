// The shape of one parsed tool call, and the error raised when none can be read.

/** One tool call made by the model: a function name and its arguments. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** The model's text or JSON holds no readable tool call (the message says why). */
export class ParseError extends Error {}
