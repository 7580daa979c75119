/** workspaces/service: creating workspaces, reading and replacing their allowances, suspension. */
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Reads, Store, Tx } from "../../store/store";
import type { ChangeContext } from "../../auth/actor";
import { recordAudit } from "../audit/service";
import { SLUG_PATTERN, type AllowancesReplacement, type CompanyAllowances, type PlatformWorkspace, type PlatformWorkspaceQuery } from "./model";

interface WorkspaceRow {
  id: string;
  name: string;
  slug: string;
  created_at: string;
  max_active_renders: number;
  renders_per_minute: number;
  documents_per_month: number | null;
  max_storage_bytes: number | null;
  test_renders_per_day: number | null;
  template_conversions_per_month: number | null;
  suspended: number;
}

function allowancesOf(r: WorkspaceRow): CompanyAllowances {
  return {
    maxActiveRenders: r.max_active_renders,
    rendersPerMinute: r.renders_per_minute,
    documentsPerMonth: r.documents_per_month,
    maxStorageBytes: r.max_storage_bytes,
    testRendersPerDay: r.test_renders_per_day,
    templateConversionsPerMonth: r.template_conversions_per_month,
    suspended: r.suspended === 1,
  };
}

function platformWorkspaceOf(r: WorkspaceRow): PlatformWorkspace {
  return { id: r.id, name: r.name, slug: r.slug, createdAt: r.created_at, ...allowancesOf(r) };
}

async function row(store: Reads, idOrSlug: string): Promise<WorkspaceRow> {
  const r = await store.get<WorkspaceRow>("SELECT * FROM workspaces WHERE id = $v OR slug = $v", { v: idOrSlug });
  if (!r) throw new ApiError("NOT_FOUND", `Workspace ${idOrSlug} was not found.`);
  return r;
}

/** slugify derives a slug from a workspace name. */
export function slugify(name: string): string {
  const slug = name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 63);
  return slug || "workspace";
}

/** createWorkspace makes a workspace with the default allowances and audits it, in `tx`. */
export async function createWorkspace(tx: Tx, clock: Clock, ctx: ChangeContext, input: { name: string; slug?: string }): Promise<PlatformWorkspace> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 128) throw new ApiError("BAD_REQUEST", "The workspace name must be 1 to 128 characters.", { details: [{ path: "/name", message: "must be 1 to 128 characters" }] });
  const slug = input.slug ?? slugify(name);
  if (!SLUG_PATTERN.test(slug))
    throw new ApiError("BAD_REQUEST", "The workspace slug is not valid.", { details: [{ path: "/slug", message: "must be 1 to 63 lowercase letters, digits or -, starting with a letter or digit" }] });
  if (await tx.get("SELECT 1 FROM workspaces WHERE slug = $slug", { slug }))
    throw new ApiError("CONFLICT", `A workspace with slug ${slug} already exists.`, { details: [{ path: "/slug", message: "is taken" }] });
  const id = newId("ws");
  await tx.run("INSERT INTO workspaces (id, name, slug, created_at) VALUES ($id, $name, $slug, $createdAt)", {
    id,
    name,
    slug,
    createdAt: clock.now().toISOString(),
  });
  await recordAudit(tx, clock, ctx, { workspaceId: id, action: "workspace.created", resourceType: "workspace", resourceId: id, resourceName: name, metadata: { slug } });
  return platformWorkspaceOf(await row(tx, id));
}

/** getWorkspace answers a workspace by id or slug, or 404. */
export async function getWorkspace(store: Reads, idOrSlug: string): Promise<PlatformWorkspace> {
  return platformWorkspaceOf(await row(store, idOrSlug));
}

/** getAllowances answers a workspace's seven allowance fields. */
export async function getAllowances(store: Reads, workspaceId: string): Promise<CompanyAllowances> {
  return allowancesOf(await row(store, workspaceId));
}

/** lockWorkspace locks the workspace's row until `tx` ends and answers its allowances: the transactions that check an
 * allowance and then count against it (renders, storage) take turns per workspace, and those of other workspaces
 * never wait for them (docs/scale-out.md "Locks"). `NO KEY UPDATE`: the inserts that name the workspace (a render's
 * row, its event) check their foreign key with a share lock this one does not block, so they never wait for it and
 * never deadlock with it. */
export async function lockWorkspace(tx: Tx, workspaceId: string): Promise<CompanyAllowances> {
  const r = await tx.get<WorkspaceRow>("SELECT * FROM workspaces WHERE id = $id FOR NO KEY UPDATE", { id: workspaceId });
  if (!r) throw new ApiError("NOT_FOUND", `Workspace ${workspaceId} was not found.`);
  return allowancesOf(r);
}

/** listWorkspaces answers one page of all workspaces, newest first, optionally matching `search` in name or slug. */
export async function listWorkspaces(store: Reads, query: PlatformWorkspaceQuery): Promise<{ items: PlatformWorkspace[]; nextCursor?: string }> {
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (query.search) {
    // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not (docs/scale-out.md "Portable SQL").
    where.push("(lower(name) LIKE lower($search) ESCAPE '\\' OR lower(slug) LIKE lower($search) ESCAPE '\\')");
    params.search = `%${query.search.replace(/[\\%_]/g, (c) => "\\" + c)}%`;
  }
  return selectPage(store, query, { from: "workspaces", where, params }, platformWorkspaceOf);
}

/** replaceAllowances replaces every allowance (omitted nullable fields become null, `suspended` false) and audits it (spec 4.2, 3.4). */
export async function replaceAllowances(store: Store, clock: Clock, ctx: ChangeContext, idOrSlug: string, input: AllowancesReplacement): Promise<CompanyAllowances> {
  const next: CompanyAllowances = {
    maxActiveRenders: input.maxActiveRenders,
    rendersPerMinute: input.rendersPerMinute,
    documentsPerMonth: input.documentsPerMonth ?? null,
    maxStorageBytes: input.maxStorageBytes ?? null,
    testRendersPerDay: input.testRendersPerDay ?? null,
    templateConversionsPerMonth: input.templateConversionsPerMonth ?? null,
    suspended: input.suspended ?? false,
  };
  return store.tx(async (tx) => {
    const before = await row(tx, idOrSlug);
    await tx.run(
      `UPDATE workspaces SET max_active_renders = $a, renders_per_minute = $b, documents_per_month = $c, max_storage_bytes = $d,
         test_renders_per_day = $e, template_conversions_per_month = $f, suspended = $g WHERE id = $id`,
      {
        a: next.maxActiveRenders,
        b: next.rendersPerMinute,
        c: next.documentsPerMonth,
        d: next.maxStorageBytes,
        e: next.testRendersPerDay,
        f: next.templateConversionsPerMonth,
        g: next.suspended ? 1 : 0,
        id: before.id,
      },
    );
    const previous = allowancesOf(before);
    const metadata: Record<string, number | boolean | null> = {};
    for (const [k, v] of Object.entries(next) as [keyof CompanyAllowances, number | boolean | null][]) {
      metadata[k] = v;
      if (previous[k] !== v) metadata[`previous.${k}`] = previous[k];
    }
    await recordAudit(tx, clock, ctx, { workspaceId: before.id, action: "workspace.allowances_updated", resourceType: "workspace", resourceId: before.id, resourceName: before.name, metadata });
    if (previous.suspended !== next.suspended) await suspensionChanged(tx, clock, ctx, before, next.suspended);
    return next;
  });
}

/** suspensionChanged audits a suspension or a restoration; a restored workspace's queued renders can be claimed again,
 * so the render workers are woken (Store.listen) as for renders just queued, rather than left to their next poll. */
async function suspensionChanged(store: Tx, clock: Clock, ctx: ChangeContext, ws: WorkspaceRow, suspended: boolean): Promise<void> {
  if (!suspended) store.notify("renders");
  await recordAudit(store, clock, ctx, {
    workspaceId: ws.id,
    action: suspended ? "workspace.suspended" : "workspace.restored",
    resourceType: "workspace",
    resourceId: ws.id,
    resourceName: ws.name,
  });
}

/** setSuspended suspends or restores a workspace (spec 3.4); answers false when it already was in that state. */
export async function setSuspended(store: Store, clock: Clock, ctx: ChangeContext, idOrSlug: string, suspended: boolean): Promise<boolean> {
  return store.tx(async (tx) => {
    const ws = await row(tx, idOrSlug);
    if ((ws.suspended === 1) === suspended) return false;
    await tx.run("UPDATE workspaces SET suspended = $s WHERE id = $id", { s: suspended ? 1 : 0, id: ws.id });
    await suspensionChanged(tx, clock, ctx, ws, suspended);
    return true;
  });
}
