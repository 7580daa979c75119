/** templates/service: a workspace's templates (DESIGN.md 4): an editable draft that must always compile, and numbered,
 * immutable published versions; each change audited in its own transaction. */
import { ApiError, type ErrorDetail } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { compileTemplate } from "../../render/compile/compile";
import type { CompositionNode, TemplateSource } from "../../render/compile/model";
import { pointer } from "../../render/compile/pointer";
import { ifMatchAllows } from "../../http/conditional";
import { sha256Hex } from "../../lib/hash";
import { inList } from "../../store/sql-list";
import type { Reads, Store, Tx } from "../../store/store";
import type { ChangeContext } from "../../auth/actor";
import { deleteResource, lastChange, recordAudit } from "../audit/service";
import { certificateProblem } from "../certificates/service";
import { validateData } from "../../render/compile/data";
import { templateStarter } from "./starters";
import {
  DRAFT_FIELDS,
  MAX_SAMPLE_DATA_BYTES,
  type CreateTemplateBody,
  type Template,
  type TemplateDraft,
  type TemplateSummary,
  type TemplateVersion,
  type TemplateVersionSummary,
  type UpdateTemplateBody,
} from "./model";

interface TemplateRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  draft: string;
  latest_version: number | null;
  created_at: string;
  updated_at: string;
}

interface VersionRow {
  id: string;
  template_id: string;
  version: number;
  source: string;
  published_at: string;
}

type Page<T> = { items: T[]; nextCursor?: string };

function toSummary(r: Omit<TemplateRow, "draft" | "workspace_id">): TemplateSummary {
  return { id: r.id, name: r.name, description: r.description, latestVersion: r.latest_version, createdAt: r.created_at, updatedAt: r.updated_at };
}

function toTemplate(r: TemplateRow): Template {
  return { ...toSummary(r), draft: JSON.parse(r.draft) as TemplateDraft };
}

/** TaggedTemplate is a template with its ETag (the header of GET, POST and PATCH, and what If-Match names). */
export interface TaggedTemplate {
  template: Template;
  etag: string;
}

// The ETag names what a PATCH changes (name, description, draft) and nothing a publish changes, so that publishing never
// makes an editor's save conflict. A digest of the stored text rather than a time or a counter: exact even for two
// writes in one millisecond, no column to keep, and the same state always has the same tag.
function templateEtag(r: Pick<TemplateRow, "name" | "description" | "draft">): string {
  return `"${sha256Hex(JSON.stringify([r.name, r.description, r.draft])).slice(0, 32)}"`;
}

function toTagged(r: TemplateRow): TaggedTemplate {
  return { template: toTemplate(r), etag: templateEtag(r) };
}

// The 409 of a PATCH whose If-Match names an older state: who made the current one and when (from the audit, which is
// written with every change), and the two ways on. The current ETag travels as the header, as on every other answer.
async function draftConflict(tx: Tx, r: TemplateRow, etag: string): Promise<ApiError> {
  const last = await lastChange(tx, r.workspace_id, "template", r.id, ["template.updated", "template.created"]);
  const when = `${last ? ` by ${last.by}` : ""} at ${last?.at ?? r.updated_at}`;
  return new ApiError(
    "CONFLICT",
    `Template ${r.id} has changed since you read it (If-Match names an earlier state): last changed${when}. Nothing was saved; read it again (GET /v1/templates/${r.id}) and apply your change to its draft as it is now, or send the PATCH without If-Match to overwrite it.`,
    { headers: { etag } },
  );
}

function toVersion(r: VersionRow): TemplateVersion {
  return { id: r.id, templateId: r.template_id, version: r.version, source: JSON.parse(r.source) as TemplateDraft, publishedAt: r.published_at };
}

/** lockedTemplateRow locks the template's row until `tx` ends and answers it: changes of one template (a PATCH, a
 * publish) take turns, so none is lost and two publishes never make one version number twice. */
async function lockedTemplateRow(tx: Tx, workspaceId: string, id: string): Promise<TemplateRow> {
  const r = await tx.get<TemplateRow>("SELECT * FROM templates WHERE id = $id AND workspace_id = $ws FOR NO KEY UPDATE", { id, ws: workspaceId });
  if (!r) throw new ApiError("NOT_FOUND", `Template ${id} was not found.`);
  return r;
}

/** templateRow answers the template's row, or only the `columns` named (a render of a version reads no draft). */
export function templateRow(store: Reads, workspaceId: string, id: string): Promise<TemplateRow>;
export function templateRow<K extends keyof TemplateRow>(store: Reads, workspaceId: string, id: string, columns: K[]): Promise<Pick<TemplateRow, K>>;
export async function templateRow(store: Reads, workspaceId: string, id: string, columns?: string[]): Promise<Partial<TemplateRow>> {
  const r = await store.get<TemplateRow>(`SELECT ${columns?.join(", ") ?? "*"} FROM templates WHERE id = $id AND workspace_id = $ws`, { id, ws: workspaceId });
  // DESIGN.md 2: another workspace's template is 404 too, never 403.
  if (!r) throw new ApiError("NOT_FOUND", `Template ${id} was not found.`);
  return r;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// The draft's fields in one order, absent ones left out, so equal drafts are equal JSON.
export function draftOf(fields: Partial<Record<(typeof DRAFT_FIELDS)[number], unknown>>): TemplateDraft {
  const draft: Record<string, unknown> = {};
  for (const field of DRAFT_FIELDS) if (fields[field] !== undefined && fields[field] !== null) draft[field] = fields[field];
  return draft as TemplateDraft;
}

/** sourceOf answers the renderable part of a draft. */
export function sourceOf(draft: TemplateDraft): TemplateSource {
  const { assetIds: _, pdf: __, signature: ___, destinationIds: ____, sampleData: _____, ...source } = draft;
  return source;
}

export type NodeUse = { id: string; at: string };

// Literal image asset ids with their pointers; an assetId that is a value reference is only known at render time.
export function imageUses(node: CompositionNode, at: string, out: NodeUse[]): NodeUse[] {
  if (node.type === "image" && typeof node.assetId === "string") out.push({ id: node.assetId, at: pointer(at, "assetId") });
  if (node.type === "container" || node.type === "repeat") node.children.forEach((child, i) => imageUses(child, pointer(at, "children", i), out));
  if (node.type === "repeat") node.empty?.forEach((child, i) => imageUses(child, pointer(at, "empty", i), out));
  return out;
}

const TEMPLATE_ASSET_KINDS = ["stylesheet", "font"];
const IMAGE_ASSET_KINDS = ["image", "svg"];

/** checkTemplateAssets lists the assets a draft names that are not uploaded assets of the workspace of the right kind:
 * `assetIds` must be stylesheets or fonts, literal image `assetId`s images or SVGs, `pdf.attachAssetIds` PDFs. */
export async function checkTemplateAssets(store: Reads, workspaceId: string, draft: TemplateDraft): Promise<ErrorDetail[]> {
  const listed = (draft.assetIds ?? []).map((id, i) => ({ id, at: pointer("", "assetIds", i) }));
  const images: NodeUse[] = [];
  imageUses(draft.content, "/content", images);
  if (draft.header) imageUses(draft.header, "/header", images);
  if (draft.footer) imageUses(draft.footer, "/footer", images);
  for (const [id, node] of Object.entries(draft.components ?? {})) imageUses(node, pointer("", "components", id), images);
  const attached = (draft.pdf?.attachAssetIds ?? []).map((id, i) => ({ id, at: pointer("", "pdf", "attachAssetIds", i) }));
  if (listed.length === 0 && images.length === 0 && attached.length === 0) return [];

  const ids = inList("id", [...new Set([...listed, ...images, ...attached].map((u) => u.id))], "asset");
  const rows = await store.all<{ id: string; kind: string; media_type: string; status: string }>(
    `SELECT id, kind, media_type, status FROM assets WHERE workspace_id = $ws AND ${ids.sql}`,
    { ws: workspaceId, ...ids.params },
  );
  const found = new Map(rows.map((a) => [a.id, a]));
  const problems: ErrorDetail[] = [];
  const check = (uses: NodeUse[], kinds: string[], wanted: string, mediaType?: string) => {
    for (const use of uses) {
      const asset = found.get(use.id);
      // Another workspace's asset reads as missing, as it does everywhere else.
      if (!asset) problems.push({ path: use.at, message: `asset ${use.id} was not found` });
      else if (asset.status !== "uploaded") problems.push({ path: use.at, message: `asset ${use.id} has not been uploaded yet` });
      else if (!kinds.includes(asset.kind)) problems.push({ path: use.at, message: `asset ${use.id} is a ${asset.kind} asset; ${wanted}` });
      else if (mediaType && asset.media_type !== mediaType) problems.push({ path: use.at, message: `asset ${use.id} is ${asset.media_type}; ${wanted}` });
    }
  };
  check(listed, TEMPLATE_ASSET_KINDS, "assetIds takes stylesheets and fonts");
  check(images, IMAGE_ASSET_KINDS, "an image node takes an image or svg asset");
  // The kind pdf also holds XML (an e-invoice to embed); only PDFs can be appended.
  check(attached, ["pdf"], "pdf.attachAssetIds takes PDF assets", "application/pdf");
  return problems;
}

/** signatureProblems lists a default signature whose certificate the workspace cannot sign with: found when the draft
 * is saved or published rather than by its first render. Renders check it again (it may be deleted later). */
async function signatureProblems(store: Reads, clock: Clock, workspaceId: string, draft: TemplateDraft): Promise<ErrorDetail[]> {
  const problem = draft.signature ? await certificateProblem(store, clock, workspaceId, draft.signature.certificateId) : null;
  return problem ? [{ path: "/signature/certificateId", message: problem }] : [];
}

// The sample data is checked as render data is, after the template itself: the schema it is checked against must be right.
function assertValidSample(draft: TemplateDraft): void {
  if (draft.sampleData === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(draft.sampleData));
  if (bytes > MAX_SAMPLE_DATA_BYTES)
    throw new ApiError("BAD_REQUEST", "The request body is not valid.", { details: [{ path: "/sampleData", message: `is ${bytes} bytes of JSON; at most ${MAX_SAMPLE_DATA_BYTES}` }] });
  if (!draft.dataSchema) return;
  const problems = validateData(draft.dataSchema, draft.sampleData, "/sampleData");
  if (problems.length) throw new ApiError("DATA_INVALID", "The sample data does not match the template's data schema.", { details: problems });
}

// Everything that makes a draft unusable is one 422, so a client fixes it in one round.
export async function assertValidDraft(store: Reads, clock: Clock, workspaceId: string, draft: TemplateDraft): Promise<void> {
  let problems: ErrorDetail[];
  let compiled: ReturnType<typeof compileTemplate> | null;
  try {
    compiled = compileTemplate(sourceOf(draft));
  } catch (error) {
    // The compiler walks the tree recursively; a tree deep enough to overflow it would not render either.
    if (!(error instanceof RangeError)) throw error;
    compiled = null;
  }
  if (compiled === null) problems = [{ path: "", message: "nests nodes too deeply" }];
  else {
    const [assets, signature] = await Promise.all([checkTemplateAssets(store, workspaceId, draft), signatureProblems(store, clock, workspaceId, draft)]);
    problems = [...("problems" in compiled ? compiled.problems : []), ...assets, ...signature];
  }
  if (problems.length) throw new ApiError("TEMPLATE_INVALID", "The template cannot be used as it is; see details.", { details: problems });
  assertValidSample(draft);
}

/** createTemplate checks the draft (compiles, assets exist, sample data fits) and makes the template, unpublished, in
 * `tx`; a `starter` gives the draft and description the fields sent do not. */
export async function createTemplate(tx: Tx, clock: Clock, ctx: ChangeContext, workspaceId: string, body: CreateTemplateBody): Promise<TaggedTemplate> {
  const starter = body.starter === undefined ? undefined : templateStarter(body.starter);
  const input = { description: starter?.description, ...starter?.source, ...withoutUndefined(body) };
  if (input.content === undefined) throw new ApiError("BAD_REQUEST", "The request body is not valid.", { details: [{ path: "/content", message: "is required, unless a starter is named" }] });
  const draft = draftOf(input);
  const id = newId("tpl");
  await assertValidDraft(tx, clock, workspaceId, draft);
  const now = clock.now().toISOString();
  await tx.run(
    `INSERT INTO templates (id, workspace_id, name, description, draft, latest_version, created_at, updated_at)
     VALUES ($id, $ws, $name, $description, $draft, NULL, $now, $now)`,
    { id, ws: workspaceId, name: body.name, description: input.description ?? null, draft: JSON.stringify(draft), now },
  );
  await recordAudit(tx, clock, ctx, { workspaceId, action: "template.created", resourceType: "template", resourceId: id, resourceName: body.name });
  return toTagged(await templateRow(tx, workspaceId, id));
}

/** listTemplates answers one page of the workspace's templates, newest first, without their drafts. */
export async function listTemplates(store: Reads, workspaceId: string, query: { limit?: string; cursor?: string }): Promise<Page<TemplateSummary>> {
  return selectPage(
    store,
    query,
    { select: "id, name, description, latest_version, created_at, updated_at", from: "templates", where: ["workspace_id = $ws"], params: { ws: workspaceId } },
    toSummary,
  );
}

/** getTemplate answers one template of the workspace with its draft. */
export async function getTemplate(store: Reads, workspaceId: string, id: string): Promise<TaggedTemplate> {
  return toTagged(await templateRow(store, workspaceId, id));
}

/** updateTemplate replaces the fields sent (null removes an optional one) and checks the merged draft again;
 * published versions never change. A PATCH that changes nothing writes no audit event. `ifMatch` (ifMatchTags) makes
 * it conditional: 409 CONFLICT unless it names the template's current ETag. */
export async function updateTemplate(
  store: Store,
  clock: Clock,
  ctx: ChangeContext,
  workspaceId: string,
  id: string,
  input: UpdateTemplateBody,
  ifMatch?: readonly string[],
): Promise<TaggedTemplate> {
  return store.tx(async (tx) => {
    // Compared under the row's lock: of two PATCHes made from the same state, the second finds it changed.
    const r = await lockedTemplateRow(tx, workspaceId, id);
    const etag = templateEtag(r);
    if (!ifMatchAllows(ifMatch, etag)) throw await draftConflict(tx, r, etag);
    const before = JSON.parse(r.draft) as TemplateDraft;
    const merged: Record<string, unknown> = { ...before };
    const draftSent = DRAFT_FIELDS.filter((f) => input[f] !== undefined);
    for (const field of draftSent) merged[field] = input[field];
    const draft = draftOf(merged);
    // Only a change of the draft is checked again: a rename must not fail because an asset was deleted since.
    if (draftSent.length) await assertValidDraft(tx, clock, workspaceId, draft);

    const name = input.name ?? r.name;
    const description = input.description === undefined ? r.description : input.description;
    const changed = [
      ...(name !== r.name ? ["name"] : []),
      ...(description !== r.description ? ["description"] : []),
      ...DRAFT_FIELDS.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(draft[f])),
    ];
    if (changed.length === 0) return { template: toTemplate(r), etag };

    await tx.run("UPDATE templates SET name = $name, description = $description, draft = $draft, updated_at = $now WHERE id = $id", {
      id,
      name,
      description,
      draft: JSON.stringify(draft),
      now: clock.now().toISOString(),
    });
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "template.updated",
      resourceType: "template",
      resourceId: id,
      resourceName: name,
      metadata: { fields: changed.join(" ") },
    });
    return toTagged(await templateRow(tx, workspaceId, id));
  });
}

/** deleteTemplate removes the template and its versions; renders already made keep running, they hold their own job. */
export function deleteTemplate(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
  // template_versions go by ON DELETE CASCADE (foreign keys are on for every connection, store/open.ts).
  return deleteResource(store, clock, ctx, "templates", (tx) => templateRow(tx, workspaceId, id), (r) => ({
    workspaceId,
    action: "template.deleted",
    resourceType: "template",
    resourceId: id,
    resourceName: r.name,
    metadata: { latestVersion: r.latest_version },
  }));
}

/** publishTemplate freezes the current draft as the next version (the first is 1), after checking it again:
 * an asset it names may have been deleted since the draft was saved. */
export async function publishTemplate(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string): Promise<TemplateVersion> {
  return store.tx(async (tx) => {
    const r = await lockedTemplateRow(tx, workspaceId, id);
    await assertValidDraft(tx, clock, workspaceId, JSON.parse(r.draft) as TemplateDraft);
    const version = (r.latest_version ?? 0) + 1;
    const versionId = newId("tv");
    const now = clock.now().toISOString();
    await Promise.all([
      tx.run(
        "INSERT INTO template_versions (template_id, version, id, source, published_at) VALUES ($tpl, $version, $id, $source, $now)",
        { tpl: id, version, id: versionId, source: r.draft, now },
      ),
      tx.run("UPDATE templates SET latest_version = $version, updated_at = $now WHERE id = $id", { id, version, now }),
    ]);
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "template.published",
      resourceType: "template",
      resourceId: id,
      resourceName: r.name,
      metadata: { version, versionId },
    });
    return toVersion({ id: versionId, template_id: id, version, source: r.draft, published_at: now });
  });
}

/** listTemplateVersions answers one page of a template's published versions, newest first, without their sources. */
export async function listTemplateVersions(store: Reads, workspaceId: string, id: string, query: { limit?: string; cursor?: string }): Promise<Page<TemplateVersionSummary>> {
  await templateRow(store, workspaceId, id);
  return selectPage(
    store,
    query,
    {
      // selectPage pages by (created_at, id); for a version that is when it was published. Named: PostgreSQL before 16
      // refuses a subquery in FROM without an alias.
      from: "(SELECT id, template_id, version, published_at, published_at AS created_at FROM template_versions) AS versions",
      where: ["template_id = $tpl"],
      params: { tpl: id },
    },
    (r: Omit<VersionRow, "source"> & { created_at: string }) => ({ id: r.id, templateId: r.template_id, version: r.version, publishedAt: r.published_at }),
  );
}

export async function versionRow(store: Reads, templateId: string, version: number): Promise<VersionRow> {
  const r = await store.get<VersionRow>("SELECT * FROM template_versions WHERE template_id = $tpl AND version = $version", { tpl: templateId, version });
  if (!r) throw new ApiError("NOT_FOUND", `Template ${templateId} has no version ${version}.`);
  return r;
}

/** getTemplateVersion answers one published version with its source. */
export async function getTemplateVersion(store: Reads, workspaceId: string, id: string, version: number): Promise<TemplateVersion> {
  // Both read at once, but the template's answer comes first: when both fail (another workspace's template, or none),
  // Promise.all would answer whichever query failed first — on PostgreSQL, two connections, either one.
  const [template, row] = await Promise.allSettled([templateRow(store, workspaceId, id), versionRow(store, id, version)]);
  if (template.status === "rejected") throw template.reason;
  if (row.status === "rejected") throw row.reason;
  return toVersion(row.value);
}
