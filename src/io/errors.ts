// Errors of the JSONL scoring path that the user must fix: I/O problems and a --resume that does not
// match its input. The CLI prints their message and exits 2.

/** An I/O problem the user must fix (unreadable input, unwritable output). */
export class IoError extends Error {
  override name = 'IoError';
}

/** `--resume` found an output file that was not written from this input; nothing was appended. */
export class ResumeError extends IoError {
  override name = 'ResumeError';
}
