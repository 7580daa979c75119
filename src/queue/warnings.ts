/**
 * queue/warnings: the warnings a render keeps (spec: renders fetch nothing but the workspace's own assets) — what its
 * page asked for and did not get, and the Tailwind classes that made no CSS — as stored with the render and answered
 * by the API. The renderer makes them (render/warnings.ts); they live here, below it, because the queue stores them.
 * docs/rendering.md "Warnings".
 */
import { Type, type Static } from "@sinclair/typebox";
import { literalUnion } from "../lib/literals";

/** At most this many warnings are kept per render: the first ones, one per address and reason. */
export const MAX_WARNINGS = 20;

/** ResourceWarning: the page asked for an address and did not get it. */
export const ResourceWarning = Type.Object(
  {
    reason: literalUnion(["blocked", "asset_not_found", "asset_failed"] as const, {
      description: "blocked: not an asset of the workspace, so never fetched; asset_not_found: no such uploaded asset; asset_failed: the asset could not be read.",
    }),
    url: Type.String({ description: "The address asked for, without its query, fragment or credentials (an asset address without its render's scope)." }),
    host: Type.Optional(Type.String({ description: "The host asked for, when the address has one and it is not the asset origin." })),
  },
  { description: "The page asked for something it did not get." },
);
export type ResourceWarning = Static<typeof ResourceWarning>;

/** ClassWarning: a Tailwind class in `tw` made no CSS (misspelt, not a Tailwind 3 utility, or refused). */
export const ClassWarning = Type.Object(
  {
    reason: Type.Literal("unknown_class", { description: "A class in `tw` is no Tailwind utility (or loads a resource) and made no CSS." }),
    className: Type.String({ description: "The class, as written." }),
    path: Type.String({ description: "The JSON pointer of the first `tw` that uses it, such as /content/children/0/tw or /document/children/2/tw." }),
  },
  { description: "A Tailwind class that took no effect." },
);
export type ClassWarning = Static<typeof ClassWarning>;

export const RenderWarning = Type.Union([ResourceWarning, ClassWarning], { description: "Something the document asked for and did not get; the render succeeded without it." });
export type RenderWarning = Static<typeof RenderWarning>;
