/** api/usage: the workspace's daily usage (`GET /v1/usage`, spec 4.8), read by the overview and usage pages. */
import { useQuery } from "@tanstack/react-query";
import type { UsageReport } from "../../src/modules/usage/model";
import { api, currentWorkspace, query } from "./client";

/** utcDay answers the UTC day `offset` days from today, `YYYY-MM-DD`. */
export function utcDay(offset = 0): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

/** useUsage answers the usage from `from` to `to` (UTC days, both included). */
export function useUsage(from: string, to: string) {
  return useQuery({ queryKey: ["usage", currentWorkspace(), from, to], queryFn: () => api<UsageReport>(`/v1/usage${query({ from, to })}`) });
}

/** dailySeries answers every day of the report's range with one counter, 0 on days the API has no row for. */
export function dailySeries(report: UsageReport, counter: keyof UsageReport["totals"]): { days: string[]; values: number[] } {
  const byDay = new Map(report.days.map((d) => [d.day, d[counter]]));
  const days: string[] = [];
  for (let t = Date.parse(`${report.from}T00:00:00Z`); t <= Date.parse(`${report.to}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return { days, values: days.map((d) => byDay.get(d) ?? 0) };
}
