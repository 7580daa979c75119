/** progress: the bar draws on a terminal only — never into a pipe or a file, never under CI. */
import { describe, expect, test } from "bun:test";
import { formatBar, formatBytes, progressBar } from "../../cli/progress";

function terminal(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe("progressBar", () => {
  test("on a terminal it redraws one line in place and clears it at the end", () => {
    const t = terminal(true);
    const bar = progressBar(formatBytes, t, {});
    bar.update("backup", 0, 2_000_000);
    bar.update("backup", 2_000_000, 2_000_000);
    bar.end();
    expect(t.written[0]).toBe(`\r${formatBar("backup", 0, 2_000_000, formatBytes)}\x1b[K`);
    expect(t.written[1]).toBe(`\rbackup  [${"#".repeat(30)}] 100%  2.0 MB/2.0 MB\x1b[K`);
    expect(t.written.at(-1)).toBe("\r\x1b[K");
  });

  test("into a pipe, or with CI set, it writes nothing", () => {
    for (const [t, env] of [[terminal(false), {}], [terminal(true), { CI: "true" }]] as const) {
      const bar = progressBar(formatBytes, t, env);
      bar.update("restore", 1, 2);
      bar.end();
      expect(t.written).toEqual([]);
    }
  });

  test("redraws at most every 100 ms within a phase and never the same line twice, but always shows a new phase and the end", () => {
    const t = terminal(true);
    let clock = 1_000;
    const bar = progressBar((n) => `${n} days`, t, {}, () => clock);
    for (let day = 1; day <= 50; day++) bar.update("usage", day, 366);
    clock += 100;
    bar.update("usage", 51, 366);
    bar.update("verify", 1, 10);
    bar.update("verify", 10, 10);
    bar.update("verify", 10, 10);
    expect(t.written).toHaveLength(4);
    expect(t.written[1]).toContain("51 days/366 days");
    expect(t.written[2]).toContain("verify");
    expect(t.written[3]).toContain("100%  10 days/10 days");
  });

  test("formatBar fills in proportion and formatBytes uses powers of 1000", () => {
    expect(formatBar("usage", 183, 366, (n) => `${n} days`)).toBe(`usage   [${"#".repeat(15)}${"-".repeat(15)}]  50%  183 days/366 days`);
    expect([formatBytes(999), formatBytes(1000), formatBytes(3_400_000), formatBytes(1_200_000_000)]).toEqual(["999 B", "1.0 kB", "3.4 MB", "1.2 GB"]);
  });
});
