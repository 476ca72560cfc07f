// `arbiter/graders`: registers every built-in grader type (the library, the server, `arbiter
// types`). The list is ./builtins.ts: adding a type is its module plus one line there.
import { registerBuiltinTypes } from './builtins.js';

await registerBuiltinTypes();
