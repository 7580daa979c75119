/** health/model: the readiness answer of spec 4.1. */
import { Type, type Static } from "@sinclair/typebox";
import { literalUnion } from "../../lib/literals";

export const Ready = Type.Object({ status: Type.Literal("ok") });

export const Unavailable = Type.Object({ status: Type.Literal("unavailable"), unavailable: Type.Array(literalUnion(["database", "redis"] as const)) });

export const Readiness = Type.Union([Ready, Unavailable]);
export type Readiness = Static<typeof Readiness>;
