// Usage errors as git writes them: the error and one line naming the command's help, never the whole
// help; a misspelt option is reported as unknown with "did you mean", even when it leaves a required
// option unset.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('usage errors', () => {
  it('a misspelt required option is unknown, with did-you-mean and the help line', async () => {
    const r = await runCli(['score', '--grdaer', 'g.json', 'in.jsonl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '--grdaer'\n(Did you mean --grader?)\nsee 'arbiter score --help'\n");
    expect(r.stdout).toBe('');
  });
  it('a missing required option or argument, and an unknown command, are one error plus the help line', async () => {
    let r = await runCli(['score', 'in.jsonl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: required option '-g, --grader <file>' not specified\nsee 'arbiter score --help'\n");
    r = await runCli(['score', '-g', 'g.json']);
    expect(r.stderr).toBe("error: missing required argument 'input'\nsee 'arbiter score --help'\n");
    r = await runCli(['scor']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown command 'scor'\n(Did you mean score?)\nsee 'arbiter --help'\n");
  });
  it('nested commands name their own path; --opt=value spellings of known options are not unknown', async () => {
    let r = await runCli(['env', 'serve', '--prot', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '--prot'\n(Did you mean --port?)\nsee 'arbiter env serve --help'\n");
    r = await runCli(['score', '--concurrency=3', 'in.jsonl']);
    expect(r.stderr).toBe("error: required option '-g, --grader <file>' not specified\nsee 'arbiter score --help'\n");
  });
});
