/** usage/model: the daily usage record (spec 2.10), GET /v1/usage (4.8) and GET /v1/platform/usage (4.3). */
import { Type, type Static } from "@sinclair/typebox";
import { documented, Identifier, PageQueryFields } from "../../http/schemas";

/** DAY_PATTERN is the shape of a UTC day; whether it is a real calendar day is checked by the service. */
export const DAY_PATTERN = "^\\d{4}-\\d{2}-\\d{2}$";
export const Day = documented(Type.String({ pattern: DAY_PATTERN, errorMessage: "must be a day such as 2026-03-10" }), { format: "date" });

const Counter = Type.Integer({ minimum: 0, maximum: 9007199254740991 });

/** UsageCounters are the five counters of spec 2.10. */
export const UsageCounters = Type.Object({
  rendersSucceeded: Counter,
  rendersFailed: Counter,
  rendersCancelled: Counter,
  pages: Counter,
  outputBytes: Counter,
});
export type UsageCounters = Static<typeof UsageCounters>;

export const UsageDay = Type.Composite([Type.Object({ day: Day }), UsageCounters]);
export type UsageDay = Static<typeof UsageDay>;

/** UsageReport is the answer of GET /v1/usage: the range, its totals, and only the days with usage, oldest first. */
export const UsageReport = Type.Object({ from: Day, to: Day, totals: UsageCounters, days: Type.Array(UsageDay) });
export type UsageReport = Static<typeof UsageReport>;

export const UsageQuery = Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day) }, { additionalProperties: false });
export type UsageQuery = Static<typeof UsageQuery>;

export const PlatformUsageItem = Type.Composite([Type.Object({ workspaceId: Identifier, name: Type.String(), slug: Type.String() }), UsageCounters]);
export type PlatformUsageItem = Static<typeof PlatformUsageItem>;

/** PlatformUsagePage is a spec 2.1 Page of workspaces with usage in the range, with the range it covers. */
export const PlatformUsagePage = Type.Object({
  from: Day,
  to: Day,
  items: Type.Array(PlatformUsageItem),
  nextCursor: Type.Optional(Identifier),
});
export type PlatformUsagePage = Static<typeof PlatformUsagePage>;

export const PlatformUsageQuery = Type.Object(
  { from: Type.Optional(Day), to: Type.Optional(Day), ...PageQueryFields },
  { additionalProperties: false },
);
export type PlatformUsageQuery = Static<typeof PlatformUsageQuery>;

/** UsageExportRow is one line of `renderd usage export`: one workspace on one day. */
export const UsageExportRow = Type.Composite([Type.Object({ day: Day, workspaceId: Identifier, workspaceSlug: Type.String() }), UsageCounters]);
export type UsageExportRow = Static<typeof UsageExportRow>;
