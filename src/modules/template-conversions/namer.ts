/** template-conversions/namer: lets a model behind an OpenAI-compatible chat endpoint (TEMPLATE_CONVERTER_URL) rename the
 * detected fields, tables and table columns. Whatever it answers is checked; a name that is not a fresh, valid property
 * name is ignored, and a model that fails leaves the offline names (docs/conversions.md "Naming with a model"). */
import type { Logger } from "pino";
import type { Config } from "../../config";
import type { Detection } from "./detect";

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
  "You name the data fields of a document template made from a PDF. You get the fields (name, value, label) and the " +
  "tables (name, columns with header and sample values). Answer one JSON object: " +
  '{"fields": {"<current name>": "<new name>"}, "tables": {"<current name>": {"name": "<new name>", "columns": {"<current column>": "<new column>"}}}}. ' +
  "Names are camelCase English, letters and digits only, unique. Leave out what keeps its name.";

type Answer = { fields?: Record<string, unknown>; tables?: Record<string, { name?: unknown; columns?: Record<string, unknown> }> };

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

function question(found: Detection): string {
  return JSON.stringify({
    fields: found.fields.map((f) => ({ name: f.name, value: f.value, label: f.label })),
    tables: found.tables.map((t) => ({ name: t.name, columns: t.columns.map((c, i) => ({ name: c.name, header: c.header, values: t.rows.slice(0, 3).map((r) => r[i]!.text) })) })),
  });
}

/** nameWithModel asks the model for better names and answers the renamed detection, or `found` unchanged when no model
 * is set or it does not answer usefully (logged, never a failed conversion). */
export async function nameWithModel(found: Detection, options: NamerOptions, log: Logger): Promise<Detection> {
  if (!options.url || (found.fields.length === 0 && found.tables.length === 0)) return found;
  try {
    const response = await fetch(`${options.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: options.model,
        temperature: 0,
        response_format: { type: "json_object" },
        messages: [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: question(found) },
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
    return applyNames(found, answer);
  } catch (error) {
    log.warn({ err: (error as Error).message }, "template converter model not used; the offline names stay");
    return found;
  }
}
