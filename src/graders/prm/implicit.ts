// The `implicit` PRM protocol's arithmetic (PRIME, Cui et al. 2025; Implicit PRM, Yuan et al. 2024):
// the response's tokens and log-probabilities are read from a completions reply that echoes
// prompt + response (vLLM / SGLang `echo` + `logprobs`), located in the response by the tokens'
// own text, checked to be the same tokenisation under the policy and the reference model, and
// turned into per-token rewards β·(log π − log π_ref), summed per step (by character offsets) and
// per response. Anything that cannot be located exactly is an invalid grade, never a guessed reward,
// except where the response itself is why (a token across the prompt/response boundary: the
// policy's text retokenises into something it never sampled): that is `UnscorableResponse`, which
// the grader turns into its configured floor.
import type { CompletionLogprobs } from '../../models/types.js';
import { GradeFailure } from '../../core/result.js';

/** The response's tokens as one endpoint scored them. */
export interface ResponseTokens {
  /** The tokens' texts (they spell the response exactly). */
  tokens: string[];
  /** log p(token | everything before it), one per token. */
  logprobs: number[];
  /** Each token's first character in the response (UTF-16 index, as the step spans count). */
  starts: number[];
  /** The server's own `text_offset` of each response token (null where it sent none). */
  offsets: (number | null)[];
  /** Tokens of the echoed prompt before the response. */
  promptTokens: number;
}

/** The response's own text cannot be scored as sampled; `tokens` is how many of the server's tokens cover it (for a floor placed on the last). */
export class UnscorableResponse extends Error {
  override name = 'UnscorableResponse';
  constructor(
    readonly reason: string,
    readonly tokens: number,
  ) {
    super(reason);
  }
}

const show = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

/**
 * Finds the response's tokens in the echoed logprobs of `prompt + response`. The tokens must spell
 * a text that ends with the response, and one of them must start exactly where the response starts
 * (a token across the prompt/response boundary is a retokenisation the policy never sampled).
 * `who` names the endpoint in messages.
 */
export function responseTokens(lp: CompletionLogprobs | undefined, response: string, who: string): ResponseTokens {
  if (!lp || lp.tokens.length === 0)
    throw new GradeFailure('judge_server_error', `the ${who} answered without echoed logprobs (is "echo" supported? the request asks echo: true, logprobs: 1)`);
  const { tokens, token_logprobs: tl } = lp;
  if (tl.length !== tokens.length) throw new GradeFailure('judge_server_error', `the ${who} sent ${tokens.length} tokens but ${tl.length} token_logprobs`);
  if (lp.text_offset !== undefined && lp.text_offset.length !== tokens.length)
    throw new GradeFailure('judge_server_error', `the ${who} sent ${tokens.length} tokens but ${lp.text_offset.length} text_offset entries`);
  const { from, at, k } = locate(tokens, response, who);
  if (at !== from)
    throw new UnscorableResponse(
      `token ${k - 1} (${show(tokens[k - 1]!)}) of the ${who}'s tokenisation runs across the end of the prompt into the response: prompt + response tokenise differently from the sampled response`,
      tokens.length - k + 1,
    );
  if (k === tokens.length) throw new GradeFailure('bad_input', 'the response is empty: there are no response tokens to reward');
  const out: ResponseTokens = { tokens: [], logprobs: [], starts: [], offsets: [], promptTokens: k };
  let pos = 0;
  for (let i = k; i < tokens.length; i++) {
    const x = tl[i];
    if (x === null || x === undefined || !Number.isFinite(x)) {
      if (i === 0)
        throw new GradeFailure('bad_input', 'the prompt is empty: the first response token is the first token of the text and has no log-probability');
      throw new GradeFailure('judge_server_error', `the ${who} sent no log-probability for response token ${i - k} (${show(tokens[i]!)})`);
    }
    out.tokens.push(tokens[i]!);
    out.logprobs.push(x);
    out.starts.push(pos);
    out.offsets.push(lp.text_offset?.[i] ?? null);
    pos += tokens[i]!.length;
  }
  return out;
}

/** Where the response starts in the echoed tokens: its first character `from`, the end `at` of the first `k` tokens (at === from when a token starts there). */
function locate(tokens: readonly string[], response: string, who: string): { from: number; at: number; k: number } {
  const spelled = tokens.join('');
  if (spelled.length < response.length)
    throw new GradeFailure(
      'judge_server_error',
      `the ${who}'s logprob reply spells ${spelled.length} characters, shorter than the ${response.length}-character response`,
    );
  if (!spelled.endsWith(response))
    throw new GradeFailure(
      'judge_server_error',
      `the ${who}'s echoed tokens do not end with the response (they end ${show(spelled.slice(-Math.min(40, response.length)))}; a token that is part of a multi-byte character, or a server that does not echo the prompt)`,
    );
  const from = spelled.length - response.length;
  let at = 0;
  let k = 0;
  while (k < tokens.length && at < from) at += tokens[k++]!.length;
  return { from, at, k };
}

/** How many of the echoed tokens cover the response (a token across the boundary counted): the length of a floor's token rewards. */
export function coveringTokens(lp: CompletionLogprobs | undefined, response: string, who: string): number {
  if (!lp || lp.tokens.length === 0)
    throw new GradeFailure('judge_server_error', `the ${who} answered without echoed logprobs (is "echo" supported? the request asks echo: true, logprobs: 1)`);
  const { from, at, k } = locate(lp.tokens, response, who);
  return lp.tokens.length - k + (at === from ? 0 : 1);
}

/** Refuses a reference whose tokens or offsets differ from the policy's (the log-ratio needs one token sequence). */
export function sameTokenisation(policy: ResponseTokens, ref: ResponseTokens): void {
  const differ = (what: string, detail: string) =>
    new GradeFailure('config_error', `the reference model tokenises the text differently from the policy (${what}: ${detail}); both must share one tokenizer`);
  if (policy.promptTokens !== ref.promptTokens) throw differ('prompt tokens', `${policy.promptTokens} vs ${ref.promptTokens}`);
  if (policy.tokens.length !== ref.tokens.length) throw differ('response tokens', `${policy.tokens.length} vs ${ref.tokens.length}`);
  for (let i = 0; i < policy.tokens.length; i++) {
    if (policy.tokens[i] !== ref.tokens[i]) throw differ(`response token ${i}`, `${show(policy.tokens[i]!)} vs ${show(ref.tokens[i]!)}`);
    const a = policy.offsets[i];
    const b = ref.offsets[i];
    if (a !== null && b !== null && a !== b) throw differ(`text_offset of response token ${i}`, `${a} vs ${b}`);
  }
}

export interface ImplicitRewards {
  /** β·(log π − log π_ref) per response token. */
  tokenRewards: number[];
  /** The step each token counts toward (index from 0). */
  tokenSteps: number[];
  /** Σ of the token rewards of each step. */
  stepRewards: number[];
  /** Σ of every token reward of the response. */
  responseReward: number;
}

/**
 * Per-token rewards and their sums per step. A token counts toward the first step that ends after
 * the token's first character: a step owns the tokens after the previous step's end up to its own
 * end (PRIME's step ranges), so the separators between steps go to the next step, and tokens after
 * the last step to the last one. Every token counts exactly once: the step rewards add up to the
 * response's.
 */
export function implicitRewards(policy: ResponseTokens, ref: ResponseTokens, beta: number, spans: readonly (readonly [number, number])[]): ImplicitRewards {
  const tokenRewards = policy.logprobs.map((lp, i) => beta * (lp - ref.logprobs[i]!));
  const stepRewards = spans.map(() => 0);
  const tokenSteps: number[] = [];
  let j = 0;
  for (let i = 0; i < tokenRewards.length; i++) {
    while (j < spans.length - 1 && spans[j]![1] <= policy.starts[i]!) j++;
    tokenSteps.push(j);
    stepRewards[j]! += tokenRewards[i]!;
  }
  const responseReward = tokenRewards.reduce((a, b) => a + b, 0);
  return { tokenRewards, tokenSteps, stepRewards, responseReward };
}
