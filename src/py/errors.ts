// Exceptions of the Python emulation: PyException is a Python exception raised inside a simulated
// API or tool (BFCL turns it into the result "Error during execution: <str(e)>", tau-bench into
// "Error: <str(e)>"); EnvLimit and Unsupported
// are arbiter's own refusals (a hard limit hit, or Python that arbiter cannot evaluate faithfully),
// which make a grade invalid instead of guessing.

/** A Python exception: `type` is the class name, `text()` is `str(e)`. */
export class PyException extends Error {
  /** Formats a KeyError's key; installed by format.ts (which imports this module). */
  static reprHook: (v: unknown) => string = (v) => String(v);

  readonly #render: () => string;

  constructor(
    readonly type: string,
    message: string | (() => string),
  ) {
    // a lazy text (a KeyError's repr) is only rendered when asked for
    super(typeof message === 'string' ? `${type}: ${message}` : type);
    this.name = 'PyException';
    this.#render = typeof message === 'string' ? () => message : message;
  }

  /** KeyError(key): `str()` is the key's repr. */
  static keyError(key: unknown): PyException {
    return new PyException('KeyError', () => PyException.reprHook(key));
  }

  /** Python's `str(e)`. */
  text(): string {
    return this.#render();
  }
}

/** A hard limit on untrusted input or work was reached: the grade is invalid (`limit_exceeded`). */
export class EnvLimit extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvLimit';
  }
}

/** The input uses Python that arbiter does not evaluate, so it cannot say what BFCL would do (`bad_input`). */
export class Unsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Unsupported';
  }
}
