/** draft/patch: what Save draft sends, and whether two drafts are the same. */
import type { TemplateDraft, UpdateTemplateBody } from "../../../../src/modules/templates/model";
import type { Draft } from "./nodes";

// A record over the draft's fields: the type checker tells when the API adds one. sampleData is edited in its own
// box and sent only when it was edited, so it is not listed.
const DRAFT_FIELDS: Record<keyof Draft, true> = {
  content: true,
  components: true,
  dataSchema: true,
  stylesheet: true,
  assetIds: true,
  page: true,
  header: true,
  footer: true,
  pdf: true,
  signature: true,
  destinationIds: true,
};

/** patchOf turns the edited draft (and the sample data, when it was edited) into a PATCH body: fields present are
 * sent, fields removed as null. */
export function patchOf(edited: Draft, before: TemplateDraft, sampleData: unknown): UpdateTemplateBody {
  const body: Record<string, unknown> = sampleData === undefined ? { ...edited } : { ...edited, sampleData };
  for (const field of Object.keys(DRAFT_FIELDS)) if (field in before && !(field in edited)) body[field] = null;
  return body as UpdateTemplateBody;
}

/** withoutSample answers a draft without its sample data, which the designer edits apart. */
export function withoutSample(draft: TemplateDraft): Draft {
  const { sampleData: _, ...rest } = draft;
  return rest;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]));
}

/** sameJson tells whether two JSON values are equal, whatever the order of their keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}
