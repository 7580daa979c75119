/** workspaces/model: allowances (spec 2.2), render limits (2.3), platform workspaces (2.4). */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";

const MAX_SAFE = 9007199254740991;

const allowanceFields = {
  maxActiveRenders: Type.Integer({ minimum: 1, maximum: 100000 }),
  rendersPerMinute: Type.Integer({ minimum: 1, maximum: 10000000 }),
  documentsPerMonth: Type.Union([Type.Integer({ minimum: 0, maximum: 1000000000 }), Type.Null()]),
  maxStorageBytes: Type.Union([Type.Integer({ minimum: 0, maximum: MAX_SAFE }), Type.Null()]),
  testRendersPerDay: Type.Union([Type.Integer({ minimum: 0, maximum: 10000000 }), Type.Null()]),
  templateConversionsPerMonth: Type.Union([Type.Integer({ minimum: 0, maximum: 1000000 }), Type.Null()]),
  suspended: Type.Boolean(),
};

export const CompanyAllowances = Type.Object(allowanceFields);
export type CompanyAllowances = Static<typeof CompanyAllowances>;

/** AllowancesReplacement is the PUT body of 4.2: the two rate fields required, the rest optional, nothing else. */
export const AllowancesReplacement = Type.Object(
  {
    maxActiveRenders: allowanceFields.maxActiveRenders,
    rendersPerMinute: allowanceFields.rendersPerMinute,
    documentsPerMonth: Type.Optional(allowanceFields.documentsPerMonth),
    maxStorageBytes: Type.Optional(allowanceFields.maxStorageBytes),
    testRendersPerDay: Type.Optional(allowanceFields.testRendersPerDay),
    templateConversionsPerMonth: Type.Optional(allowanceFields.templateConversionsPerMonth),
    suspended: Type.Optional(allowanceFields.suspended),
  },
  { additionalProperties: false },
);
export type AllowancesReplacement = Static<typeof AllowancesReplacement>;

const Counter = Type.Integer({ minimum: 0, maximum: MAX_SAFE });

export const UsageCounters = Type.Object({
  documentsThisMonth: Counter,
  storageBytes: Counter,
  testRendersToday: Counter,
  templateConversionsThisMonth: Counter,
});
export type UsageCounters = Static<typeof UsageCounters>;

export const RenderLimits = Type.Composite([CompanyAllowances, UsageCounters]);
export type RenderLimits = Static<typeof RenderLimits>;

export const PlatformWorkspace = Type.Composite([
  Type.Object({ id: Identifier, name: Type.String(), slug: Type.String(), createdAt: IsoDateTime }),
  CompanyAllowances,
]);
export type PlatformWorkspace = Static<typeof PlatformWorkspace>;

export const PlatformWorkspaceQuery = Type.Object(
  { ...PageQueryFields, search: Type.Optional(Type.String({ maxLength: 128 })) },
  { additionalProperties: false },
);
export type PlatformWorkspaceQuery = Static<typeof PlatformWorkspaceQuery>;

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
