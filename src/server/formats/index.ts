// The one list of wire formats the server speaks: each module declares itself (name, summary,
// routes, when it is served, how it registers; see ../context.ts WireFormat). Adding a format is
// its module plus one line here: createServer registers every format on the list (and checks each
// registers exactly its declared routes), `arbiter serve --help` lists their routes, and
// test/server/formats.contract.test.ts runs the format contract over every route.
import type { WireFormat } from '../context.js';
import { format as health } from './health.js';
import { format as openai } from './openai.js';
import { format as openrlhf } from './openrlhf.js';
import { format as score } from './score.js';
import { format as slime } from './slime.js';
import { format as nemoGym } from './nemo-gym.js';
import { format as groups } from './groups.js';
import { format as sandboxFusion } from './sandbox-fusion.js';
import { format as llamaFactory } from './llamafactory.js';

export const FORMATS: readonly WireFormat[] = [health, openai, openrlhf, score, slime, nemoGym, groups, sandboxFusion, llamaFactory];
