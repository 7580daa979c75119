/** renders/asset-bytes: the assets a request's print jobs name are read before planning. Planning meets an asset deep
 * inside the compiler (it asks `find(id)` as it goes), which cannot wait for a read there, while the store and the
 * FileStore answer asynchronously (PostgreSQL, an S3 bucket): so the rows and the embedded bytes of the assets a template
 * names are read first, and an asset only planning discovers (an image named by the data or by a document) is noted as
 * missing, read, and planning runs again with it. Nothing is written meanwhile: planning comes before the transaction
 * that queues. */
import { ApiError } from "../../errors";
import { inList } from "../../store/sql-list";
import type { FileStore } from "../../store/files";
import type { UploadedAsset } from "../../store/assets";
import type { Reads, Store } from "../../store/store";
import { templateAssetIds, templateForRender, type TemplateForRender } from "../templates/for-render";

/** PlanningAssets is what planning finds its assets in: rows by asset id (null: no uploaded asset of the workspace)
 * and bytes by sha256; `missing` collects what planning asked for and was not there yet; `templates` holds the
 * templates the request names, read once for their assets and for planning (templateFor). */
export interface PlanningAssets {
  rows: ReadonlyMap<string, UploadedAsset | null>;
  bytes: ReadonlyMap<string, Uint8Array>;
  missing: { rows: Set<string>; bytes: Map<string, string> };
  templates: ReadonlyMap<string, Promise<TemplateForRender>>;
}

/** PlanningDeps is what reading the assets takes, and where planning finds them (the renders service's deps). */
export interface PlanningDeps {
  store: Store;
  files: FileStore;
  assets?: PlanningAssets;
}

/** TemplateRef names a template and the version a request renders ("draft", "latest" or a number). */
export interface TemplateRef {
  templateId: string;
  which: number | "draft" | "latest";
}

/** TemplateUse is a template a request renders: named, or already read (a preview's, whose draft may be unsaved). */
export type TemplateUse = TemplateRef | { template: TemplateForRender };

// The kinds whose bytes a job embeds (render/job.ts): stylesheets inline, images and SVGs as data URLs.
const EMBEDDED_KINDS = new Set(["stylesheet", "image", "svg"]);
// Each round reads every asset the previous one found missing; only assets named by what earlier ones held need more.
const MAX_REPLANS = 20;

/** withAssetBytes runs `plan` with the assets of the templates `uses` names read, reading what planning finds missing
 * and planning again; a round that missed nothing answers (or throws) as `plan` did. */
export async function withAssetBytes<D extends PlanningDeps, T>(deps: D, workspaceId: string, uses: readonly TemplateUse[], plan: (deps: D) => Promise<T>): Promise<T> {
  const rows = new Map<string, UploadedAsset | null>();
  const bytes = new Map<string, Uint8Array>();
  const templates = new Map<string, Promise<TemplateForRender>>();
  for (const use of uses) {
    if ("template" in use || templates.has(refKey(use))) continue;
    const read = templateForRender(deps.store, workspaceId, use.templateId, use.which);
    // A template that is not there is planning's to answer, with the request's own error.
    read.catch(() => {});
    templates.set(refKey(use), read);
  }
  const named = await Promise.all(
    uses.map((use) => ("template" in use ? templateAssetIds(use.template) : templates.get(refKey(use))!.then(templateAssetIds, () => [] as string[]))),
  );
  // Planning finds a missing template and answers the request's own error.
  await readAssets(deps, workspaceId, rows, bytes, new Set(named.flat()), new Map());
  for (let replans = 0; ; replans++) {
    const missing = { rows: new Set<string>(), bytes: new Map<string, string>() };
    let outcome: { ok: T } | { error: unknown };
    try {
      outcome = { ok: await plan({ ...deps, assets: { rows, bytes, missing, templates } }) };
    } catch (error) {
      outcome = { error };
    }
    if (missing.rows.size === 0 && missing.bytes.size === 0) {
      if ("error" in outcome) throw outcome.error;
      return outcome.ok;
    }
    if (replans === MAX_REPLANS)
      throw new ApiError("LIMIT_EXCEEDED", `The request names assets through more than ${MAX_REPLANS} levels (data naming images in a header or footer); name fewer.`);
    await readAssets(deps, workspaceId, rows, bytes, missing.rows, missing.bytes);
  }
}

/** templateFor answers the template `ref` names as withAssetBytes read it for this request, or reads it. */
export function templateFor(deps: PlanningDeps, workspaceId: string, ref: TemplateRef): Promise<TemplateForRender> {
  return deps.assets?.templates.get(refKey(ref)) ?? templateForRender(deps.store, workspaceId, ref.templateId, ref.which);
}

const refKey = (ref: TemplateRef) => `${ref.templateId}@${ref.which}`;

/** readAssets reads the rows of `ids` (and the bytes of those of an embedded kind) and the bytes of `shas` (sha256 →
 * asset id) into the maps. */
async function readAssets(
  deps: PlanningDeps,
  workspaceId: string,
  rows: Map<string, UploadedAsset | null>,
  bytes: Map<string, Uint8Array>,
  ids: ReadonlySet<string>,
  shas: ReadonlyMap<string, string>,
): Promise<void> {
  const wanted = [...ids].filter((id) => !rows.has(id));
  const toRead = new Map(shas);
  if (wanted.length > 0) {
    const list = inList("id", wanted, "a");
    const found = await deps.store.all<{ id: string; kind: string; filename: string; media_type: string; sha256: string }>(
      `SELECT id, kind, filename, media_type, sha256 FROM assets WHERE workspace_id = $ws AND status = 'uploaded' AND ${list.sql}`,
      { ws: workspaceId, ...list.params },
    );
    for (const id of wanted) rows.set(id, null);
    for (const a of found) {
      rows.set(a.id, { kind: a.kind, filename: a.filename, mediaType: a.media_type, sha256: a.sha256 });
      if (EMBEDDED_KINDS.has(a.kind)) toRead.set(a.sha256, a.id);
    }
  }
  await Promise.all(
    [...toRead].filter(([sha]) => !bytes.has(sha)).map(async ([sha, assetId]) => {
      const read = await deps.files.read("assets", sha);
      if (!read) throw new ApiError("ASSET_INVALID", `Asset ${assetId} is no longer available; upload it again or name another.`);
      bytes.set(sha, read);
    }),
  );
}
