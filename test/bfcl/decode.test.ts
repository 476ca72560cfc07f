// BFCL's decoders for recorded model outputs, against what its own handlers return (recorded from
// bfcl_eval/model_handler/utils.py): the prompting decoder drops positional arguments, turns names
// and keyword-less calls into strings, nested calls and dicts of dicts into call strings, negates any
// unary operand, evaluates literal arithmetic, and fails (the step is dropped) on prose, attributes,
// unknown names and an empty dict; the function-calling decoder renders name(k=repr(v)).
import { describe, expect, it } from 'vitest';
import { decodeFunctionCalling, decodePrompting } from '../../dist/envs/bfcl_multi_turn/index.js';

describe('default_decode_execute_prompting', () => {
  const cases: [string, string[] | undefined][] = [
    ["[cd(folder='a'), ls(a=True)]", ["cd(folder='a')", 'ls(a=True)']],
    ["sort('x')", ['sort()']],
    ["```[post_tweet(content='hi', tags=['#a'], mentions=[])]```", ["post_tweet(content='hi', tags=['#a'], mentions=[])"]],
    ["[f(x=g(a=1), y=h(2), z=name, w=-3, v=1+2, d={'k': {'a': 1}})]", ["f(x=g(a=1), y='h(2)', z='name', w=-3, v=3, d=k(a=1))"]],
    ['f(d={})', undefined],
    ['f(x=+5)', ['f(x=-5)']],
    ['I will call cd now', undefined],
    ['[Done]', undefined],
    ['f(x=a.b)', undefined],
    ['f(x=1, x=2)', ['f(x=2)']],
    ["f(x={'a': 1, 'b': {'c': 2}})", ["f(x={'a': 1, 'b': {'c': 2}})"]],
    ['m.f(a=1)', ['m.f(a=1)']],
    ['f(x=y+1)', undefined],
    ["'[f(a=1)]'", undefined],
  ];
  for (const [text, want] of cases) {
    it(`${JSON.stringify(text)} -> ${JSON.stringify(want ?? null)}`, () => {
      expect(decodePrompting(text)).toEqual(want);
    });
  }
});

describe('convert_to_function_call', () => {
  it('JSON-text arguments keep Python types; objects too; bad JSON drops the step', () => {
    expect(decodeFunctionCalling([{ cd: '{"folder": "a"}' }, { ls: { a: true } }])).toEqual(["cd(folder='a')", 'ls(a=True)']);
    expect(decodeFunctionCalling({ place_order: '{"price": 1.0, "amount": 5}' })).toEqual(['place_order(price=1.0,amount=5)']);
    expect(decodeFunctionCalling([{ cd: '{bad' }])).toBeUndefined();
    expect(decodeFunctionCalling('text')).toBeUndefined();
  });
});
