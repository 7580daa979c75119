/** lib/keyed-lock: one task at a time per key, in this process. */

/** KeyedLock runs the tasks of one key one after another, in the order they were given; other keys run freely. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** run starts `task` once every earlier task of `key` has settled, and answers its result. */
  run<T>(key: string, task: () => Promise<T> | T): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
