/** http/conditional: the If-Match header of a conditional change (RFC 9110 13.1.1), read once for every route that
 * honours it; the service compares the tags with the resource's current ETag inside the change's transaction. */
import { ApiError } from "../errors";

// RFC 9110 8.8.3: an entity tag is quoted, optionally weak; etagc is any visible character but the double quote.
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** ifMatchTags answers the entity tags an If-Match header names, or undefined when it sets no condition: absent, or `*`
 * (any current state of a resource that exists). Throws 400 BAD_REQUEST for a header that is not a list of quoted tags,
 * so a client sending `If-Match: 3` learns why rather than meeting a conflict it can never get past. */
export function ifMatchTags(header: string | null): string[] | undefined {
  if (header === null || header.trim() === "*") return undefined;
  const tags = header.split(",").map((t) => t.trim());
  if (tags.every((t) => ENTITY_TAG.test(t))) return tags;
  throw new ApiError("BAD_REQUEST", 'If-Match must be * or one or more ETags as renderd answered them, in double quotes (If-Match: "…").', {
    details: [{ path: "/if-match", message: "must be * or quoted ETags separated by commas" }],
  });
}

/** ifMatchAllows tells whether the tags of ifMatchTags allow a change of a resource whose ETag is `etag`: the strong
 * comparison of RFC 9110 8.8.3.2, so a weak tag (W/"…") never matches. */
export function ifMatchAllows(tags: readonly string[] | undefined, etag: string): boolean {
  return tags === undefined || tags.includes(etag);
}

/** IF_MATCH_PARAMETER describes the header in a route's OpenAPI operation: `detail: { parameters: [it] }`. */
export const IF_MATCH_PARAMETER = {
  name: "If-Match",
  in: "header",
  required: false,
  description:
    "The ETag of the state the change was made from (as GET answered it). When the resource has changed since, the answer is 409 CONFLICT and nothing is written; without it, the change overwrites whatever is there.",
  schema: { type: "string" },
} as const;
