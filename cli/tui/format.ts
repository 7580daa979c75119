/** tui/format: the short texts the screens are made of — sparklines, durations, sizes, times. */

const BARS = "▁▂▃▄▅▆▇█";

/** sparkline draws one character per value, scaled to the largest (all low when every value is 0). */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => BARS[max === 0 ? 0 : Math.round((v / max) * (BARS.length - 1))]).join("");
}

/** seconds formats a duration: `0.42s`, `12.3s`, `-` when unknown. */
export function seconds(value: number | null): string {
  if (value === null) return "-";
  return value < 10 ? `${value.toFixed(2)}s` : `${value.toFixed(1)}s`;
}

/** bytes formats a size in binary units. */
export function bytes(value: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = value;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** limit formats an allowance: the number, or `∞` for null (unlimited). */
export function limit(value: number | null): string {
  return value === null ? "∞" : String(value);
}

/** clockTime formats an ISO time as `HH:MM:SS` UTC, or `-`. */
export function clockTime(iso: string | null): string {
  return iso ? iso.slice(11, 19) : "-";
}

/** ago formats how long before `now` an ISO time was: `42s`, `5m`, `3h`, `2d`. */
export function ago(iso: string, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** cut shortens text to `width` characters, ending with `…` when cut. */
export function cut(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : text.slice(0, Math.max(0, width - 1)) + "…";
}
