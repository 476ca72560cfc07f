// The Redis queue between `arbiter serve --queue` and any number of `arbiter worker` processes
// (docs/queue.md): the server-side executor, the worker, and what they exchange.
export { queueExecutor } from './producer.js';
export type { QueueExecutorOptions } from './producer.js';
export { startQueueWorker } from './consumer.js';
export type { QueueWorker, QueueWorkerOptions, WorkerEvent } from './consumer.js';
export { checkRedis, parseRedisUrl } from './redis.js';
export type { RedisTarget } from './redis.js';
export { DEFAULT_PREFIX, fingerprint, queueName, PROTOCOL } from './protocol.js';
export type { JobData, JobResult, WorkerRecord } from './protocol.js';
