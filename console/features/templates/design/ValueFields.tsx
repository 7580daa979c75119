/** ValueFields: what a text node (or a table column) shows — Text (a literal, or text with {path} placeholders), Data
 * path (one of the data schema's paths, typed or picked) or Expression (a computed value) — and its Format. Filling one
 * of the three makes it the value. */
import type { Problem } from "../JsonEditor";
import { fromText, kindOf, sameText, textOf, withExpression, withPath, type Computed, type Reference, type TextValue } from "../draft/values";
import { PathField, problemAt, SelectField, TextField } from "./fields";

type Format = NonNullable<Reference["format"]>;

const FORMATS: [string, string][] = [
  ["", "None"],
  ["number", "Number"],
  ["currency", "Currency"],
  ["percent", "Percent"],
  ["date", "Date"],
];
const DATE_STYLES: [string, string][] = [
  ["", "Default (medium)"],
  ["short", "Short"],
  ["medium", "Medium"],
  ["long", "Long"],
  ["full", "Full"],
];

function FormatFields({ value, onChange, problems }: { value: Reference | Computed; onChange: (v: TextValue, field: string) => void; problems: Problem[] }) {
  const format = value.format;
  const set = (next: Partial<Format> | null, field: string) => {
    const { format: _, ...rest } = value;
    const merged = next === null ? undefined : ({ ...format, ...next } as Format);
    // An option set to nothing leaves the format without it.
    if (merged) for (const k of Object.keys(merged) as (keyof Format)[]) if (merged[k] === "" || merged[k] === undefined) delete merged[k];
    onChange((merged ? { ...rest, format: merged } : rest) as TextValue, field);
  };
  return (
    <>
      <SelectField
        label="Format"
        value={format?.type ?? ""}
        options={FORMATS}
        error={problemAt(problems, "/format/type")}
        onChange={(type) => set(type ? { type: type as Format["type"], ...(type === "currency" && !format?.currency ? { currency: "EUR" } : {}) } : null, "format")}
      />
      {format?.type === "currency" ? (
        <TextField label="Currency" value={format.currency ?? ""} placeholder="EUR" error={problemAt(problems, "/format/currency")} onChange={(currency) => set({ currency }, "currency")} />
      ) : null}
      {format ? (
        <TextField label="Locale" value={format.locale ?? ""} placeholder="en-US" error={problemAt(problems, "/format/locale")} onChange={(locale) => set({ locale }, "locale")} />
      ) : null}
      {format?.type === "date" ? (
        <SelectField
          label="Date style"
          value={format.dateStyle ?? ""}
          options={DATE_STYLES}
          error={problemAt(problems, "/format/dateStyle")}
          onChange={(dateStyle) => set({ dateStyle: (dateStyle || undefined) as Format["dateStyle"] }, "dateStyle")}
        />
      ) : null}
    </>
  );
}

interface Props {
  value: TextValue;
  /** `field` names the field edited, so that typing in it is one undo step. */
  onChange: (value: TextValue, field: string) => void;
  problems: Problem[];
  /** The data paths to offer, in the scope of the node. */
  paths: string[];
  /** Labels of the three fields (a table column names its path "Value path"). */
  labels?: { text: string; path: string; expression: string };
}

/** ValueFields edits one value. */
export function ValueFields({ value, onChange, problems, paths, labels = { text: "Text", path: "Data path", expression: "Expression" } }: Props) {
  const kind = kindOf(value);
  const ref = value as Reference;
  const computed = value as Computed;
  return (
    <>
      <TextField
        label={labels.text}
        value={kind === "text" ? textOf(value) : ""}
        hint="Write {customer.name} to put a value from the data in the text."
        normalize={sameText}
        error={kind === "text" ? problemAt(problems, "") : undefined}
        onChange={(text) => onChange(fromText(text, value), "text")}
      />
      <PathField
        label={labels.path}
        path={kind === "path" ? ref.path : undefined}
        paths={paths}
        error={kind === "path" ? problemAt(problems, "/path") : undefined}
        onChange={(path) => onChange(path === "" ? "" : withPath(path, value), "path")}
      />
      <TextField
        label={labels.expression}
        value={kind === "expression" ? computed.expression : ""}
        placeholder="e.g. quantity * price"
        error={kind === "expression" ? problemAt(problems, "/expression") : undefined}
        onChange={(expression) => onChange(expression === "" ? "" : withExpression(expression, value), "expression")}
      />
      {kind === "text" ? null : <FormatFields value={ref} onChange={onChange} problems={problems} />}
    </>
  );
}
