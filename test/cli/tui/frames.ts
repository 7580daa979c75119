/** frames: waiting for an ink-testing-library frame and typing keys into it, shared by the TUI's screen tests. */
import type { render } from "ink-testing-library";

type Ui = ReturnType<typeof render>;

/** frameWith waits (up to 3 s) for the last frame of `ui()` to show `text` (or to satisfy it) and answers it. */
export async function frameWith(ui: () => Ui, text: string | RegExp | ((frame: string) => boolean)): Promise<string> {
  const shows = typeof text === "string" ? (f: string) => f.includes(text) : text instanceof RegExp ? (f: string) => text.test(f) : text;
  for (let i = 0; i < 300; i++) {
    const frame = ui().lastFrame() ?? "";
    if (shows(frame)) return frame;
    await Bun.sleep(10);
  }
  throw new Error(`no frame shows ${text}; last frame:\n${ui().lastFrame()}`);
}

/** press types each of `keys` in its own read, a moment apart (a held arrow or a paste is one string). */
export async function press(ui: Ui, keys: string[]): Promise<void> {
  for (const k of keys) {
    ui.stdin.write(k);
    await Bun.sleep(30);
  }
}
