// Recovering the response from an OpenRLHF query: prefix removal, EOS and padding stripping.
import { describe, expect, it } from 'vitest';
import { DEFAULT_EOS_TOKENS } from '../../dist/server/index.js';
import { extractResponse, stripTrailingTokens } from '../../dist/server/index.js';

describe('extractResponse', () => {
  it('removes the prompt prefix and trailing EOS tokens with whitespace between them', () => {
    expect(extractResponse('P: hi\nA: 4<|im_end|>\n<|endoftext|>', 'P: hi\n', DEFAULT_EOS_TOKENS)).toEqual({ ok: true, text: 'A: 4' });
    expect(extractResponse('<s>[INST] q [/INST] ans</s>', '<s>[INST] q [/INST]', DEFAULT_EOS_TOKENS)).toEqual({ ok: true, text: ' ans' });
  });
  it('keeps whitespace the model wrote when no token follows it, and tokens inside the text', () => {
    expect(stripTrailingTokens('a <|im_end|> b\n', DEFAULT_EOS_TOKENS)).toBe('a <|im_end|> b\n');
    expect(stripTrailingTokens('x\n<|eot_id|>', DEFAULT_EOS_TOKENS)).toBe('x\n');
  });
  it('skips left padding before the prompt, and refuses a query that does not start with its prompt', () => {
    expect(extractResponse('<pad><pad>Q?A', 'Q?', DEFAULT_EOS_TOKENS)).toEqual({ ok: true, text: 'A' });
    const r = extractResponse('other Q?A', 'Q?', DEFAULT_EOS_TOKENS);
    expect(r.ok).toBe(false);
  });
  it('compares the whole prompt (a query that differs in its last character before the response is refused)', () => {
    const prompt = `<|im_start|>user\n${'a long question '.repeat(40)}<|im_end|>\n<|im_start|>assistant\n`;
    expect(extractResponse(`${prompt}A: 4<|im_end|>`, prompt, DEFAULT_EOS_TOKENS)).toEqual({ ok: true, text: 'A: 4' });
    expect(extractResponse(`${prompt.slice(0, -1)}X A: 4`, prompt, DEFAULT_EOS_TOKENS).ok).toBe(false);
    expect(extractResponse(prompt.slice(0, -1), prompt, DEFAULT_EOS_TOKENS).ok).toBe(false); // shorter than its prompt
  });
  it('strips tokens that end in different characters, in any order, and none that only share a last character', () => {
    expect(stripTrailingTokens('A[PAD] <end>\n[PAD]', ['<end>', '[PAD]'])).toBe('A');
    expect(stripTrailingTokens('A friend>', ['<end>'])).toBe('A friend>');
    expect(stripTrailingTokens('', ['<end>'])).toBe('');
  });
  it('uses a custom token list only', () => {
    expect(extractResponse('Q?A<end>', 'Q?', ['<end>'])).toEqual({ ok: true, text: 'A' });
    expect(extractResponse('Q?A</s>', 'Q?', ['<end>'])).toEqual({ ok: true, text: 'A</s>' });
  });
});
