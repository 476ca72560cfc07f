// The JSON schema of the OpenAI grader answer `{"steps": [{description, conclusion}], "result"}`,
// sent as `response_format` to servers that support structured output (the verdict then sits in
// its own slot, where nothing the judge quotes can be mistaken for it); `result` varies by grader.
// Also the instruction that asks for that object, for servers that take the prompt only.
import type { JsonSchemaFormat } from '../../models/types.js';

export function verdictSchema(name: string, result: Record<string, unknown>): JsonSchemaFormat {
  return {
    name,
    strict: true,
    schema: {
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          items: {
            type: 'object',
            properties: { description: { type: 'string' }, conclusion: { type: 'string' } },
            required: ['description', 'conclusion'],
            additionalProperties: false,
          },
        },
        result,
      },
      required: ['steps', 'result'],
      additionalProperties: false,
    },
  };
}

/** The instruction asking for the structured answer, naming what `result` may be. */
export function structuredInstruction(result: string): string {
  return (
    `Give your answer as a JSON object: your reasoning as "steps", then your verdict as "result": ` +
    `{"steps": [{"description": "...", "conclusion": "..."}], "result": ${result}}.`
  );
}

/** Schema and instruction for a verdict that is one of `values` (e.g. "[[A]]", "[[B]]"). */
export function choiceFormat(name: string, values: string[]): { schema: JsonSchemaFormat; instruction: string } {
  return {
    schema: verdictSchema(name, { type: 'string', enum: values }),
    instruction: structuredInstruction(values.map((v) => JSON.stringify(v)).join(' or ')),
  };
}
