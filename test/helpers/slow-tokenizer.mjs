// Imported in worker threads through services.options.workerModules: makes every tokenizer load
// of that thread take 2.5 s longer (an injected loader delay, core/startup.ts setStartupHook), so a
// test can show that a slow start-up is not charged to a 2 s timeout_ms.
import { setStartupHook } from '../../dist/core/startup.js';

const TOKENIZER_DELAY_MS = 2_500;

setStartupHook(async (what) => {
  if (what.startsWith('tokenizer ')) await new Promise((r) => setTimeout(r, TOKENIZER_DELAY_MS));
});
