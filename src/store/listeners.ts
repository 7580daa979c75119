/** store/listeners: this process's listeners per wake-up channel (Store.listen), and the channels a transaction
 * notified, woken once it has committed — the part of wake-ups both engines share. */
import type { Channel } from "./store";

/** Listeners holds one store's listeners by channel. */
export class Listeners {
  private readonly byChannel = new Map<Channel, Set<() => void>>();

  /** add registers `fn` on `channel` and answers its removal. */
  add(channel: Channel, fn: () => void): () => void {
    let set = this.byChannel.get(channel);
    if (!set) this.byChannel.set(channel, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /** wake calls every listener of each channel. */
  wake(channels: Iterable<Channel>): void {
    for (const channel of channels) for (const fn of this.byChannel.get(channel) ?? []) fn();
  }
}
