/** format: how the console writes dates, sizes and counts. */

/** formatDate writes an ISO time as a short local date and time, or a dash when there is none. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** formatTime writes an ISO time as a short local time of day (HH:MM). */
export function formatTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });
}

/** formatBytes writes a byte count in B, kB, MB or GB. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return "—";
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** formatLimit writes an allowance, where null means no limit. */
export function formatLimit(value: number | null, format: (n: number) => string = String): string {
  return value === null ? "no limit" : format(value);
}
