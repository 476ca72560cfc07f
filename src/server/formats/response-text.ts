// Recovers a model's response from an OpenRLHF query (prompt + response, decoded with special
// tokens): strip leading padding tokens, remove the prompt prefix, strip trailing EOS/pad tokens.

export type Extracted = { ok: true; text: string } | { ok: false; message: string };

/**
 * True when `s` begins with `prefix`. A slice compared with `===` (a memory compare): V8's
 * startsWith compares one character at a time, about 1 µs for a 300-character prompt, more than
 * grading a string_check.
 */
function hasPrefix(s: string, prefix: string): boolean {
  return s.length >= prefix.length && s.slice(0, prefix.length) === prefix;
}

/** Removes any of `tokens` (and the whitespace after each) from the end of `s`, repeatedly. */
export function stripTrailingTokens(s: string, tokens: readonly string[]): string {
  let end = s.length;
  for (;;) {
    let e = end;
    while (e > 0 && isSpace(s.charCodeAt(e - 1))) e--;
    // most responses end in no token at all: its last character rules out every token ending otherwise
    const last = s.charCodeAt(e - 1);
    const t = tokens.find((tok) => e >= tok.length && tok.charCodeAt(tok.length - 1) === last && s.startsWith(tok, e - tok.length));
    if (!t) break;
    end = e - t.length;
  }
  return end === s.length ? s : s.slice(0, end);
}

/** Removes any of `tokens` from the start of `s`, repeatedly (left padding). */
export function stripLeadingTokens(s: string, tokens: readonly string[]): string {
  let start = 0;
  for (;;) {
    const t = tokens.find((tok) => s.startsWith(tok, start));
    if (!t) break;
    start += t.length;
  }
  return start === 0 ? s : s.slice(start);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * The response inside `query`. With a prompt, the query must start with it (after left padding is
 * removed); otherwise the sample cannot be graded safely (grading the prompt could leak the answer).
 */
export function extractResponse(query: string, prompt: string | undefined, tokens: readonly string[]): Extracted {
  let rest = query;
  if (prompt !== undefined && prompt !== '') {
    if (!hasPrefix(rest, prompt)) {
      rest = stripLeadingTokens(rest, tokens);
      if (!hasPrefix(rest, prompt)) {
        return {
          ok: false,
          message: `the query does not start with its prompt (query begins ${JSON.stringify(query.slice(0, 60))}, prompt begins ${JSON.stringify(prompt.slice(0, 60))})`,
        };
      }
    }
    rest = rest.slice(prompt.length);
  }
  return { ok: true, text: stripTrailingTokens(rest, tokens) };
}
