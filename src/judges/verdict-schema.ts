// The JSON schema of the OpenAI grader answer `{"steps": [{description, conclusion}], "result"}`,
// sent as `response_format` to servers that support structured output; `result` varies by grader.
import type { JsonSchemaFormat } from '../models/types.js';

export function verdictSchema(name: string, result: Record<string, unknown>): JsonSchemaFormat {
  return {
    name,
    strict: true,
    schema: {
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          items: { type: 'object', properties: { description: { type: 'string' }, conclusion: { type: 'string' } }, required: ['description', 'conclusion'], additionalProperties: false },
        },
        result,
      },
      required: ['steps', 'result'],
      additionalProperties: false,
    },
  };
}
