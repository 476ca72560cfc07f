// Worker-thread entry of the grader pool: builds the grader once from the config it was given and
// grades each batch of samples posted to it, replying with the results in order. It has its own
// services (sandbox pool, model clients).
import { parentPort, workerData } from 'node:worker_threads';
import '../graders/index.js';
import { loadGrader } from '../core/registry.js';
import { Services } from '../core/services.js';
import type { GradeInput } from '../core/sample.js';

const { config, servicesOptions } = workerData as { config: unknown; servicesOptions: Record<string, unknown> };
// Modules that register custom grader types (library users' own types must exist here too).
const modules = Array.isArray(servicesOptions.workerModules) ? (servicesOptions.workerModules as string[]) : [];
for (const m of modules) await import(m);
const grader = loadGrader(config);
const services = new Services(servicesOptions);

parentPort!.on('message', (m: { inputs: GradeInput[] }) => {
  void Promise.all(m.inputs.map((input) => grader.grade(input, { services }))).then((results) => parentPort!.postMessage({ results }));
});
