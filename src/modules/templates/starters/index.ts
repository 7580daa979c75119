/** starters: the complete drafts a template can begin from (GET /v1/template-starters, POST /v1/templates with
 * `starter`): each has a data schema, sample data, a stylesheet defining the classes its content uses, page settings
 * and a footer, and renders with its sample data as a document a business would send. */
import { ApiError } from "../../../errors";
import type { StarterId, TemplateStarter } from "../model";
import { CERTIFICATE } from "./certificate";
import { INVOICE } from "./invoice";
import { LETTER } from "./letter";
import { RECEIPT } from "./receipt";
import { REPORT } from "./report";

const STARTERS: readonly TemplateStarter[] = [INVOICE, RECEIPT, LETTER, REPORT, CERTIFICATE];

/** templateStarters answers every starter, in the order the console offers them. */
export function templateStarters(): readonly TemplateStarter[] {
  return STARTERS;
}

/** templateStarter answers one starter; the body schema admits only known ids, so a miss is a bug. */
export function templateStarter(id: StarterId): TemplateStarter {
  const starter = STARTERS.find((s) => s.id === id);
  if (!starter) throw new ApiError("INTERNAL", `starter ${id} is missing`);
  return starter;
}
