/** template-conversions/namer: lets a model behind an OpenAI-compatible chat endpoint (TEMPLATE_CONVERTER_URL) group
 * lines into tables the offline detector missed and rename the fields, tables and table columns. Whatever it answers is
 * checked: a group that does not line up, or a name that is not a fresh, valid property name, is ignored, and a model
 * that fails leaves the offline detection (docs/conversions.md "Naming with a model"). */
import type { Logger } from "pino";
import type { Config } from "../../config";
import { detect, tableCandidates, type Detection } from "./detect";
import type { TextRun } from "./extract";

/** NamerOptions say where the model is; a conversion without `url` uses the offline names alone. */
export interface NamerOptions {
  url?: string;
  model: string;
  timeoutMs: number;
}

// A local model on a small machine takes a while; past this the offline names are used.
const TIMEOUT_MS = 60_000;

/** namerOptions reads the model's settings from the configuration. */
export function namerOptions(config: Config): NamerOptions {
  return { url: config.templateConverterUrl, model: config.templateConverterModel, timeoutMs: TIMEOUT_MS };
}

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

const INSTRUCTIONS =
  "You help turn a PDF into a document template. You get the data fields found in it (name, value, label), the tables " +
  "found (name, columns with header and sample values) and the lines of two or more cells (index, cells). Answer one " +
  'JSON object: {"groups": [[<line index>, …]], "fields": {"<current name>": "<new name>"}, "tables": {"<current name>": ' +
  '{"name": "<new name>", "columns": {"<current column>": "<new column>"}}}}. "groups" lists runs of consecutive lines ' +
  "that are rows of one table not found yet (not its header). Names are camelCase English, letters and digits only, " +
  "unique. Leave out what keeps its name.";

// At most this many candidate lines go into the question, so a long document does not make an endless prompt.
const MAX_LINES = 300;

type Answer = { groups?: unknown; fields?: Record<string, unknown>; tables?: Record<string, { name?: unknown; columns?: Record<string, unknown> }> };

// One mapping old → new: a new name must be valid and not yet used by another entry.
function renames(current: string[], proposed: Record<string, unknown> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set(current);
  for (const name of current) {
    const next = proposed?.[name];
    if (typeof next !== "string" || next === name || !NAME.test(next) || taken.has(next)) continue;
    taken.delete(name);
    taken.add(next);
    out.set(name, next);
  }
  return out;
}

/** applyNames answers the detection with the model's names put in, where they are valid. */
export function applyNames(found: Detection, answer: Answer): Detection {
  const roots = [...found.fields.map((f) => f.name), ...found.tables.map((t) => t.name)];
  const rootNames = renames(roots, { ...answer.fields, ...Object.fromEntries(Object.entries(answer.tables ?? {}).map(([k, v]) => [k, v?.name])) });
  const renamed = (name: string) => rootNames.get(name) ?? name;
  return {
    fields: found.fields.map((f) => ({ ...f, name: renamed(f.name) })),
    blocks: found.blocks.map((b) => ({ ...b, pieces: b.pieces.map((p) => (typeof p === "string" ? p : { field: renamed(p.field) })) })),
    tables: found.tables.map((t) => {
      const columns = renames(
        t.columns.map((c) => c.name),
        answer.tables?.[t.name]?.columns,
      );
      return { ...t, name: renamed(t.name), columns: t.columns.map((c) => ({ ...c, name: columns.get(c.name) ?? c.name })) };
    }),
  };
}

function question(runs: TextRun[], found: Detection): string {
  return JSON.stringify({
    fields: found.fields.map((f) => ({ name: f.name, value: f.value, label: f.label })),
    tables: found.tables.map((t) => ({ name: t.name, columns: t.columns.map((c, i) => ({ name: c.name, header: c.header, values: t.rows.slice(0, 3).map((r) => r[i]!.text) })) })),
    lines: tableCandidates(runs).slice(0, MAX_LINES),
  });
}

async function ask(runs: TextRun[], found: Detection, options: NamerOptions & { url: string }): Promise<Answer> {
  const response = await fetch(`${options.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: options.model,
      temperature: 0,
      response_format: { type: "json_object" },
      messages: [
        { role: "system", content: INSTRUCTIONS },
        { role: "user", content: question(runs, found) },
      ],
    }),
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  if (!response.ok) throw new Error(`the endpoint answered HTTP ${response.status}`);
  const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== "string") throw new Error("the answer has no choices[0].message.content");
  // Models often wrap JSON in a code fence.
  const answer = JSON.parse(content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, "")) as Answer;
  if (typeof answer !== "object" || answer === null) throw new Error("the answer is not a JSON object");
  return answer;
}

const isIndexList = (group: unknown): group is number[] => Array.isArray(group) && group.every((n) => typeof n === "number");

/** detectWithModel detects the document's data offline, then, when a model is set, lets it add tables and rename;
 * a model that does not answer usefully leaves the offline detection (logged, never a failed conversion). */
export async function detectWithModel(runs: TextRun[], options: NamerOptions, log: Logger): Promise<Detection> {
  const found = detect(runs);
  if (!options.url) return found;
  let answer: Answer;
  try {
    answer = await ask(runs, found, { ...options, url: options.url });
  } catch (error) {
    log.warn({ err: (error as Error).message }, "template converter model not used; the offline detection stays");
    return found;
  }
  const groups = Array.isArray(answer.groups) ? answer.groups.filter(isIndexList) : [];
  return applyNames(groups.length ? detect(runs, groups) : found, answer);
}
