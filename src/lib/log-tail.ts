/** lib/log-tail: the newest log lines of this process, kept in memory and handed to followers as they are written (the
 * internal port's /internal/logs, which `renderd tui`'s Logs tab follows). */

/** LogTail is a pino destination (it has `write`) that keeps the last `capacity` lines and tells each follower of every
 * new one. */
export class LogTail {
  private readonly lines: string[] = [];
  /** Each follower's line handler, and what to call when the tail closes. */
  private readonly followers = new Map<(line: string) => void, () => void>();

  constructor(private readonly capacity = 500) {}

  /** write takes one line (pino writes each JSON line with its newline). */
  write(chunk: string): void {
    const line = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk;
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.shift();
    for (const follow of this.followers.keys()) follow(line);
  }

  /** recent answers the lines kept, oldest first. */
  recent(): string[] {
    return [...this.lines];
  }

  /** follow calls `fn` with every line written from now on, until the answered function is called or close(). */
  follow(fn: (line: string) => void, closed: () => void): () => void {
    const entry = (line: string) => fn(line);
    this.followers.set(entry, closed);
    return () => void this.followers.delete(entry);
  }

  /** close ends every follower (the process is stopping: a follower's open answer must not hold the port open). */
  close(): void {
    for (const closed of this.followers.values()) closed();
    this.followers.clear();
  }
}
