/** PageFields: the draft's paper (size, orientation, margins), its stylesheet, and a header or footer to add. */
import type { Problem } from "../JsonEditor";
import type { Draft } from "../draft/nodes";
import { Group, problemAt, SelectField, TextField } from "./fields";

type Page = NonNullable<Draft["page"]>;
type Margin = NonNullable<Page["margin"]>;

const SIZES: [string, string][] = [
  ["", "Default (A4)"],
  ["A4", "A4"],
  ["A3", "A3"],
  ["A5", "A5"],
  ["Letter", "Letter"],
  ["Legal", "Legal"],
];
const SIDES = ["top", "right", "bottom", "left"] as const;

interface Props {
  draft: Draft;
  onChange: (draft: Draft, field: string) => void;
  /** The draft's problems, their paths from the draft's root. */
  problems: Problem[];
  onAddMarginal: (where: "header" | "footer") => void;
}

/** withPage answers the draft with its page settings changed, dropping what is left empty. */
function withPage(draft: Draft, page: Page): Draft {
  const { page: _, ...rest } = draft;
  const margin = Object.fromEntries(Object.entries(page.margin ?? {}).filter(([, v]) => v)) as Margin;
  const clean = Object.fromEntries(Object.entries({ ...page, margin: Object.keys(margin).length ? margin : undefined }).filter(([, v]) => v)) as Page;
  return Object.keys(clean).length ? { ...rest, page: clean } : rest;
}

/** PageFields edits the page settings and stylesheet. */
export function PageFields({ draft, onChange, problems, onAddMarginal }: Props) {
  const page = draft.page ?? {};
  // A custom size ({width, height}) is edited in the JSON tab; here it shows as itself.
  const size = typeof page.size === "object" ? "custom" : (page.size ?? "");
  return (
    <details className="page-fields">
      <summary>Page, stylesheet, header and footer</summary>
      <div className="grid">
        <SelectField
          label="Page size"
          value={size}
          options={size === "custom" ? [...SIZES, ["custom", "Custom (see JSON)"]] : SIZES}
          error={problemAt(problems, "/page/size")}
          onChange={(v) => v !== "custom" && onChange(withPage(draft, { ...page, size: (v || undefined) as Page["size"] }), "page.size")}
        />
        <SelectField
          label="Orientation"
          value={page.orientation ?? ""}
          options={[
            ["", "Portrait (default)"],
            ["landscape", "Landscape"],
          ]}
          onChange={(v) => onChange(withPage(draft, { ...page, orientation: (v || undefined) as Page["orientation"] }), "page.orientation")}
        />
      </div>
      <Group legend="Margins">
        <div className="grid">
          {SIDES.map((side) => (
            <TextField
              key={side}
              label={`Margin ${side}`}
              value={page.margin?.[side] ?? ""}
              placeholder="20mm"
              error={problemAt(problems, `/page/margin/${side}`)}
              onChange={(v) => onChange(withPage(draft, { ...page, margin: { ...page.margin, [side]: v } }), `page.margin.${side}`)}
            />
          ))}
        </div>
      </Group>
      <label>
        Stylesheet
        <textarea
          rows={8}
          className="code"
          value={draft.stylesheet ?? ""}
          onChange={(e) => {
            const { stylesheet: _, ...rest } = draft;
            onChange(e.currentTarget.value ? { ...rest, stylesheet: e.currentTarget.value } : rest, "stylesheet");
          }}
        />
      </label>
      <div className="toolbar">
        {draft.header ? null : (
          <button type="button" className="secondary" onClick={() => onAddMarginal("header")}>
            Add header
          </button>
        )}
        {draft.footer ? null : (
          <button type="button" className="secondary" onClick={() => onAddMarginal("footer")}>
            Add footer
          </button>
        )}
      </div>
    </details>
  );
}
