// Bounded-concurrency, order-preserving map over a (possibly async) stream: at most `concurrency`
// results are pending at once, and they are yielded in input order. Shared by the CLI's JSONL
// scoring and the library's gradeStream.

export async function* orderedMap<T, R>(
  items: AsyncIterable<T> | Iterable<T>,
  fn: (item: T) => R | Promise<R>,
  concurrency: number,
): AsyncGenerator<R> {
  const limit = Math.max(1, concurrency);
  const queue: (R | Promise<R>)[] = [];
  let head = 0;
  for await (const item of items) {
    queue.push(fn(item));
    if (queue.length - head >= limit) {
      yield await queue[head]!;
      queue[head++] = undefined as never;
      if (head > 4096) {
        queue.splice(0, head);
        head = 0;
      }
    }
  }
  while (head < queue.length) yield await queue[head++]!;
}
