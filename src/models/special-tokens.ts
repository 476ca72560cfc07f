// Text that the tokenizers of open-weight models (Hugging Face tokenizers, used by vLLM and SGLang)
// parse as a special or control token when it appears anywhere in a prompt: a response that
// writes `<|im_end|>` ends its turn in a ChatML template, `<extra_0>` adds a step to a PRM's prompt.
// Chat prompts get these neutralised (a zero-width space after the first character, so no exact
// token string is left and the model still reads the text); prompts whose token positions carry
// the score (pooling and token-probability PRMs) refuse them instead.

/**
 * Special/control token look-alikes: `<|…|>` (ChatML, Llama 3, Phi, GLM, Qwen's `<|endoftext|>` and
 * FIM tokens), DeepSeek's full-width `<｜…｜>`, the SentencePiece/BPE sequence tokens (`<s>`, `</s>`,
 * `<unk>`, `<pad>`, `<bos>`, `<eos>`, `<mask>`), Gemma's turn tokens, Qwen2.5-Math-PRM's
 * `<extra_N>`, Llama 2 / Mistral `[INST]` `[/INST]` `<<SYS>>` and Mistral's control tokens.
 */
const SPECIAL =
  /<\|[^<>|\n]{0,64}\|>|<｜[^<>｜\n]{0,64}｜>|<\/?(?:s|unk|pad|bos|eos|mask|cls|sep|start_of_turn|end_of_turn|start_of_image|end_of_image|extra_\d{1,4})>|\[\/?(?:INST|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS|TOOL_CONTENT)\]|<<\/?SYS>>/g;

/** The zero-width space put after a look-alike's first character. */
const TOKEN_BREAK = '\u200b';

/** The special-token look-alikes in `text` (distinct, at most `max`). */
export function findSpecialTokens(text: string, max = 8): string[] {
  const out = new Set<string>();
  if (typeof text !== 'string') return [];
  for (const m of text.matchAll(SPECIAL)) {
    out.add(m[0]);
    if (out.size >= max) break;
  }
  return [...out];
}

/** `text` with every special-token look-alike broken by a zero-width space after its first character. */
function neutralizeSpecialTokens(text: string): string {
  if (typeof text !== 'string' || (!text.includes('<') && !text.includes('['))) return text;
  return text.replace(SPECIAL, (m) => m[0] + TOKEN_BREAK + m.slice(1));
}

/** A chat message content (string or OpenAI parts) with the text neutralised; other parts unchanged. */
export function neutralizeContent(content: string | unknown[]): string | unknown[] {
  if (typeof content === 'string') return neutralizeSpecialTokens(content);
  return content.map((p) => {
    if (p && typeof p === 'object' && !Array.isArray(p)) {
      const o = p as Record<string, unknown>;
      if (typeof o.text === 'string') return { ...o, text: neutralizeSpecialTokens(o.text) };
    }
    return p;
  });
}

/**
 * A copy of `v` with every string neutralised (objects and arrays walked to depth 32; deeper
 * values are kept as they are, which a template cannot reach anyway).
 */
export function neutralizeDeep<T>(v: T, depth = 0): T {
  if (typeof v === 'string') return neutralizeSpecialTokens(v) as T;
  if (!v || typeof v !== 'object' || depth >= 32) return v;
  if (Array.isArray(v)) return v.map((x) => neutralizeDeep(x, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = neutralizeDeep(x, depth + 1);
  return out as T;
}
