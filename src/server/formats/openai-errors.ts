// Maps arbiter's error kinds onto the `metadata.errors` flags of OpenAI's graders API responses.
import type { ErrorKind, Result } from '../../core/result.js';

export interface OpenAIErrorFlags {
  formula_parse_error: boolean;
  sample_parse_error: boolean;
  truncated_observation_error: boolean;
  unresponsive_reward_error: boolean;
  invalid_variable_error: boolean;
  other_error: boolean;
  python_grader_server_error: boolean;
  python_grader_server_error_type: string | null;
  python_grader_runtime_error: boolean;
  python_grader_runtime_error_details: string | null;
  model_grader_server_error: boolean;
  model_grader_refusal_error: boolean;
  model_grader_parse_error: boolean;
  model_grader_server_error_details: string | null;
}

type BoolFlag = { [K in keyof OpenAIErrorFlags]: OpenAIErrorFlags[K] extends boolean ? K : never }[keyof OpenAIErrorFlags];

/** Which flag each kind raises; kinds added later fall back to `other_error`. */
const FLAG_OF: Partial<Record<ErrorKind, BoolFlag>> = {
  bad_input: 'sample_parse_error',
  template_error: 'invalid_variable_error',
  formula_error: 'formula_parse_error',
  config_error: 'other_error',
  timeout: 'unresponsive_reward_error',
  sandbox_error: 'python_grader_server_error',
  python_error: 'python_grader_runtime_error',
  judge_server_error: 'model_grader_server_error',
  judge_parse_error: 'model_grader_parse_error',
  judge_refusal: 'model_grader_refusal_error',
  limit_exceeded: 'truncated_observation_error',
  internal_error: 'other_error',
};

export function noErrors(): OpenAIErrorFlags {
  return {
    formula_parse_error: false,
    sample_parse_error: false,
    truncated_observation_error: false,
    unresponsive_reward_error: false,
    invalid_variable_error: false,
    other_error: false,
    python_grader_server_error: false,
    python_grader_server_error_type: null,
    python_grader_runtime_error: false,
    python_grader_runtime_error_details: null,
    model_grader_server_error: false,
    model_grader_refusal_error: false,
    model_grader_parse_error: false,
    model_grader_server_error_details: null,
  };
}

/** The flags for one result (all false when it is valid). */
export function errorFlags(r: Result): OpenAIErrorFlags {
  const flags = noErrors();
  if (r.valid) return flags;
  const kind = r.error?.kind ?? 'internal_error';
  const flag = FLAG_OF[kind] ?? 'other_error';
  flags[flag] = true;
  const message = r.error?.message ?? null;
  if (flag === 'python_grader_server_error') flags.python_grader_server_error_type = kind;
  if (flag === 'python_grader_runtime_error') flags.python_grader_runtime_error_details = message;
  if (flag === 'model_grader_server_error') flags.model_grader_server_error_details = message;
  return flags;
}
