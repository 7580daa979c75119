/**
 * queue-watch: what one render worker knows of its queue between looks — the wake-ups it was sent (Store.listen), the
 * one it can skip, and whether the queue is known empty — so that it asks the store only when a render may be there.
 */
export class QueueWatch {
  /** Wake-ups for queued renders so far: a render's end that saw one since its own claim's look looks again. */
  private count = 0;
  /** Set while the wake-up of an acceptance whose renders claimAccepted took all of is under way: nothing is left to look for. */
  private forNothing = false;
  /** `count` when a look last found nothing to claim: while no wake-up has come since, the queue is known empty and a
   * look is not sent (at concurrency 1 every render's end looked, in its transaction, for a render there could not be).
   * Undefined when unknown: at the start, after a render was put back or a claim rolled back, on every poll (what
   * another process queued without a wake-up here is found within a poll). */
  private emptyAt: number | undefined;

  /** wakes counts the wake-ups so far; compare two readings to tell whether one came between them. */
  get wakes(): number {
    return this.count;
  }

  /** woken takes a wake-up: false when it is the one an acceptance that claimed all its renders sends (skip it). */
  woken(): boolean {
    if (this.forNothing) return false;
    this.count += 1;
    return true;
  }

  /** tookAllAccepted: the acceptance committing now claimed exactly the renders it queued, so its wake-up, which follows
   * in this same turn, has nothing to look for. */
  tookAllAccepted(): void {
    this.forNothing = true;
    queueMicrotask(() => (this.forNothing = false));
  }

  /** mayHaveChanged forgets that the queue was empty: something may have been queued without a wake-up here. */
  mayHaveChanged(): void {
    this.emptyAt = undefined;
  }

  /** knownEmpty: a look found nothing and no wake-up has come since. */
  knownEmpty(): boolean {
    return this.emptyAt === this.count;
  }

  /** foundNothing records that a look begun at `wakes` found nothing to claim; a wake-up that came while it was out may
   * be for a render it did not see, and then the queue is not known empty. */
  foundNothing(wakes: number): void {
    this.emptyAt = wakes;
  }
}
