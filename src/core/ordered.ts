// Bounded-concurrency, order-preserving map over a (possibly async) stream: at most `concurrency`
// results are pending at once, and they are yielded in input order. Shared by the CLI's JSONL
// scoring and the library's gradeStream. In `eager` mode (for inputs that can stall, like pipes) a
// finished head result is yielded while the next input item is still awaited, so an idle input does
// not hold back results that are ready; it costs a Promise.race per item, so files do without.

const HEAD = Symbol('head');
const noop = () => {};

export async function* orderedMap<T, R>(
  items: AsyncIterable<T> | Iterable<T>,
  fn: (item: T) => R | Promise<R>,
  concurrency: number,
  eager = false,
): AsyncGenerator<R> {
  const limit = Math.max(1, concurrency);
  const queue: (R | Promise<R>)[] = [];
  let head = 0;
  const advance = () => {
    queue[head++] = undefined as never;
    if (head > 4096) {
      queue.splice(0, head);
      head = 0;
    }
  };
  if (!eager || !(Symbol.asyncIterator in items)) {
    for await (const item of items) {
      queue.push(fn(item));
      if (queue.length - head >= limit) {
        yield await queue[head]!;
        advance();
      }
    }
  } else {
    const it = items[Symbol.asyncIterator]();
    let ended = false;
    try {
      let next = it.next();
      next.catch(noop); // awaited below; this only keeps an abandoned read from being "unhandled"
      for (;;) {
        if (queue.length - head >= limit) {
          yield await queue[head]!;
          advance();
          continue;
        }
        let r: IteratorResult<T>;
        if (head < queue.length) {
          const h = queue[head]!;
          const won = await Promise.race<IteratorResult<T> | typeof HEAD>([next, h instanceof Promise ? h.then((): typeof HEAD => HEAD) : HEAD]);
          if (won === HEAD) {
            yield await h;
            advance();
            continue;
          }
          r = won;
        } else r = await next;
        if (r.done) {
          ended = true;
          break;
        }
        queue.push(fn(r.value));
        next = it.next();
        next.catch(noop);
      }
    } finally {
      // the consumer stopped early (or fn threw): close the input without waiting for a pending read
      if (!ended) it.return?.()?.catch(noop);
    }
  }
  while (head < queue.length) yield await queue[head++]!;
}
