/** cli/progress: a one-line progress bar on stderr while long work runs — on a terminal only; pipes, files and CI see nothing. */

/** ProgressBar redraws one line; `end` clears it so the command's own output starts on a clean line. */
export interface ProgressBar {
  update(label: string, done: number, total: number): void;
  end(): void;
}

interface Terminal {
  isTTY?: boolean;
  write(text: string): unknown;
}

const WIDTH = 30;
// A redraw every 100 ms is smooth to the eye and costs nothing next to the work.
const REDRAW_MS = 100;

/** formatBytes writes a byte count for people: 512 B, 3.4 MB, 1.2 GB (powers of 1000, like the rest of renderd's limits). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = n / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** formatBar draws one state of the bar: `backup  [#######-------]  50%  1.0 MB/2.0 MB`. */
export function formatBar(label: string, done: number, total: number, count: (n: number) => string): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * WIDTH);
  return `${label.padEnd(7)} [${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%  ${count(done)}/${count(total)}`;
}

/** progressBar answers a bar drawing on `terminal` when it is a TTY and CI is unset, else one that draws nothing. */
export function progressBar(
  count: (n: number) => string = formatBytes,
  terminal: Terminal = process.stderr,
  env: Record<string, string | undefined> = process.env,
  now: () => number = Date.now,
): ProgressBar {
  if (!terminal.isTTY || env.CI) return { update() {}, end() {} };
  let drawnAt = 0;
  let drawn = "";
  let text = "";
  return {
    update(label, done, total) {
      const at = now();
      if (label === drawn && done < total && at - drawnAt < REDRAW_MS) return;
      const line = formatBar(label, done, total, count);
      if (line === text) return;
      drawnAt = at;
      drawn = label;
      text = line;
      terminal.write(`\r${line}\x1b[K`);
    },
    end() {
      if (text) terminal.write("\r\x1b[K");
      text = "";
    },
  };
}
