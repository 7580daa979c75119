/** templates/for-render: what a render of a template needs — its saved draft, a published version (each read and parsed
 * once, and kept), or an unsaved draft a preview gives (checked as saving it would be) — and the assets it names. */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import type { SignatureSettings } from "../../pdf/sign";
import type { TemplateSource } from "../../render/compile/model";
import type { TemplatePdfOptions } from "../../render/pdf-options";
import type { Reads } from "../../store/store";
import { parseBody, TemplateDraft } from "./model";
import { assertValidDraft, draftOf, imageUses, sourceOf, templateRow, versionRow, type NodeUse } from "./service";

// A published version never changes: each is read and parsed once, and its renders share one source object (the key of
// render/job.ts's compile cache). Bounded: the least recently read goes first. Ids are never reused, so no entry can
// answer for another template, and a deleted template is refused by templateRow before its entry is looked at.
const published = new Map<string, TemplateForRender>();
const MAX_PUBLISHED = 256;

/** TemplateForRender is what a render of a template needs (templateForRender, unsavedDraftForRender). */
export type TemplateForRender = {
  templateId: string;
  version: number | null /* null = draft */;
  source: TemplateSource;
  assetIds: string[];
  sampleData?: unknown;
  pdf?: TemplatePdfOptions;
  signature?: SignatureSettings;
  destinationIds?: string[];
};

/** forRender answers what a render of `draft` (a version's source, or the draft when `version` is null) needs. */
function forRender(templateId: string, version: number | null, draft: TemplateDraft): TemplateForRender {
  // `assetIds` are the stylesheets and fonts the page loads; image nodes name their own assets in the source.
  return { templateId, version, source: sourceOf(draft), assetIds: draft.assetIds ?? [], sampleData: draft.sampleData, pdf: draft.pdf, signature: draft.signature, destinationIds: draft.destinationIds };
}

/** templateAssetIds answers every asset a template names itself: its stylesheets and fonts, its literal image ids and
 * the PDFs it attaches (what a render reads before planning, renders/asset-bytes.ts). */
export function templateAssetIds(template: TemplateForRender): string[] {
  const { source } = template;
  const images: NodeUse[] = [];
  imageUses(source.content, "", images);
  if (source.header) imageUses(source.header, "", images);
  if (source.footer) imageUses(source.footer, "", images);
  for (const node of Object.values(source.components ?? {})) imageUses(node, "", images);
  return [...new Set([...template.assetIds, ...images.map((u) => u.id), ...(template.pdf?.attachAssetIds ?? [])])];
}

/** templateForRender answers what a render of this template needs; throws NOT_FOUND, or CONFLICT when `which` is "latest" and nothing is published. */
export async function templateForRender(
  store: Reads,
  workspaceId: string,
  templateId: string,
  which: number | "draft" | "latest",
): Promise<TemplateForRender> {
  if (which === "draft") return forRender(templateId, null, JSON.parse((await templateRow(store, workspaceId, templateId)).draft) as TemplateDraft);
  // A version's render needs only which version is the latest: the draft (the whole source) is not read for it.
  const r = await templateRow(store, workspaceId, templateId, ["latest_version"]);
  if (which === "latest" && r.latest_version === null)
    throw new ApiError("CONFLICT", `Template ${templateId} has no published version; publish it first, or render its draft.`);
  const version = which === "latest" ? r.latest_version! : which;
  const key = `${templateId}@${version}`;
  let template = published.get(key);
  if (template) published.delete(key);
  else template = forRender(templateId, version, JSON.parse((await versionRow(store, templateId, version)).source) as TemplateDraft);
  published.set(key, template);
  if (published.size > MAX_PUBLISHED) published.delete(published.keys().next().value!);
  return template;
}

/** unsavedDraftForRender answers what a preview of an unsaved draft of the template needs (the console's designer
 * previews each edit): the template must exist, and the draft passes every check a saved draft passes, its problems
 * pointed at below `at` (400 BAD_REQUEST, 422 TEMPLATE_INVALID or DATA_INVALID for its sampleData). */
export async function unsavedDraftForRender(store: Reads, clock: Clock, workspaceId: string, templateId: string, given: unknown, at: string): Promise<TemplateForRender> {
  await templateRow(store, workspaceId, templateId, ["id"]);
  const draft = draftOf(parseBody(TemplateDraft, given, at));
  try {
    await assertValidDraft(store, clock, workspaceId, draft);
  } catch (e) {
    if (!(e instanceof ApiError) || !e.details) throw e;
    throw new ApiError(e.code, e.message, { details: e.details.map((d) => ({ ...d, path: at + (d.path ?? "") })) });
  }
  return forRender(templateId, null, draft);
}
