/** design/fields: the labelled inputs of the Node properties form, each with the API's problem for it shown beside it. */
import { useId, useState, type ReactNode } from "react";
import type { Problem } from "../JsonEditor";
import { dotted, samePath } from "../draft/values";

/** problemAt answers the messages of the problems at `path` or below it (paths relative to the node), joined. */
export function problemAt(problems: Problem[], path: string): string | undefined {
  const found = problems.filter((p) => p.path === path || p.path.startsWith(`${path}/`));
  return found.length ? found.map((p) => (p.path === path ? p.message : `${p.path.slice(path.length + 1)}: ${p.message}`)).join("; ") : undefined;
}

interface Common {
  label: string;
  error?: string;
  hint?: string;
}

function Described({ id, error, hint }: { id: string; error?: string; hint?: string }) {
  if (error) return <small id={id} className="field-error" role="alert">{error}</small>;
  return hint ? <small id={id}>{hint}</small> : null;
}

interface TextProps extends Common {
  value: string;
  onChange: (v: string) => void;
  /** A datalist's id: choices that may also be typed. */
  list?: string;
  type?: "text" | "number";
  placeholder?: string;
  /** How the draft writes back what is typed (a path without its trailing dot, a number without its trailing point):
   * while the text typed writes back as `value`, the field keeps showing the text as typed. */
  normalize?: (text: string) => string;
}

/** useTyped keeps what was typed while the value it stands for is the value shown. */
function useTyped(value: string, normalize: (text: string) => string): [string, (text: string) => void] {
  const [typed, setTyped] = useState(value);
  return [normalize(typed) === value ? typed : value, setTyped];
}

/** TextField is a labelled text (or number) input; its hint or problem is beside it, outside its label, so that the
 * label alone names it. */
export function TextField({ label, error, hint, value, onChange, list, type = "text", placeholder, normalize = (t) => t }: TextProps) {
  const id = useId();
  const [text, setText] = useTyped(value, normalize);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={text}
        list={list}
        placeholder={placeholder}
        onChange={(e) => {
          setText(e.currentTarget.value);
          onChange(e.currentTarget.value);
        }}
        aria-invalid={error ? true : undefined}
        aria-describedby={error || hint ? `${id}-about` : undefined}
      />
      <Described id={`${id}-about`} error={error} hint={hint} />
    </div>
  );
}

/** SelectField is a labelled choice among options given as [value, text]. */
export function SelectField({ label, error, hint, value, onChange, options }: Common & { value: string; onChange: (v: string) => void; options: [string, string][] }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)} aria-invalid={error ? true : undefined} aria-describedby={error || hint ? `${id}-about` : undefined}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
      <Described id={`${id}-about`} error={error} hint={hint} />
    </div>
  );
}

/** Choices is a datalist: the values a text field offers to pick. */
export function Choices({ id, values }: { id: string; values: string[] }) {
  return (
    <datalist id={id}>
      {values.map((v) => (
        <option key={v} value={v} />
      ))}
    </datalist>
  );
}

/** PathField is a field of a data path: typed dotted (`customer.name`) or picked from `paths`. `onChange` gets the text
 * as typed; the field keeps showing it while it stands for the same path. */
export function PathField({ path, paths, ...field }: Omit<TextProps, "value" | "list" | "normalize" | "type"> & { path: readonly string[] | undefined; paths: string[] }) {
  const listId = useId();
  return (
    <>
      <TextField {...field} value={path ? dotted(path) : ""} list={listId} normalize={samePath} />
      <Choices id={listId} values={paths} />
    </>
  );
}

/** Group is a fieldset with a legend. */
export function Group({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="group">
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}
