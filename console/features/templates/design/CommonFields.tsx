/** CommonFields: the fields every node has — Class names (the stylesheet's), Tailwind classes and Visible when. */
import type { Problem } from "../JsonEditor";
import type { Node } from "../draft/nodes";
import { pathOf } from "../draft/values";
import { Group, PathField, problemAt, SelectField, TextField } from "./fields";

type VisibleWhen = NonNullable<Node["visibleWhen"]>;

const OPERATORS: [VisibleWhen["operator"], string][] = [
  ["truthy", "is truthy"],
  ["falsy", "is falsy"],
  ["exists", "exists"],
  ["notExists", "does not exist"],
  ["equals", "equals"],
  ["notEquals", "does not equal"],
];

interface Props {
  node: Node;
  onChange: (node: Node, field: string) => void;
  problems: Problem[];
  paths: string[];
}

/** set answers the node with a class field set, or without it when the text is empty. */
function set<K extends "className" | "tw">(node: Node, field: K, value: string): Node {
  const { [field]: _, ...rest } = node;
  return (value === "" ? rest : { ...rest, [field]: value }) as Node;
}

/** CommonFields edits a node's classes and condition. */
export function CommonFields({ node, onChange, problems, paths }: Props) {
  const when = node.visibleWhen;
  const setWhen = (next: Partial<VisibleWhen> | null, field: string) => {
    const { visibleWhen: _, ...rest } = node;
    if (next === null) return onChange(rest as Node, field);
    const merged = { operator: "truthy", ...when, ...next } as VisibleWhen;
    if (merged.operator !== "equals" && merged.operator !== "notEquals") delete merged.value;
    onChange({ ...rest, visibleWhen: merged } as Node, field);
  };
  return (
    <>
      <TextField label="Class names" value={node.className ?? ""} placeholder="e.g. title" error={problemAt(problems, "/className")} onChange={(v) => onChange(set(node, "className", v), "className")} />
      <TextField
        label="Tailwind classes"
        value={node.tw ?? ""}
        placeholder="e.g. text-2xl font-bold text-blue-700"
        error={problemAt(problems, "/tw")}
        onChange={(v) => onChange(set(node, "tw", v), "tw")}
      />
      <Group legend="Condition">
        <PathField
          label="Visible when"
          path={when?.path}
          paths={paths}
          hint={when ? undefined : "Empty: always shown. A data path: shown when the condition on it holds."}
          error={problemAt(problems, "/visibleWhen/path") ?? problemAt(problems, "/visibleWhen/scope")}
          onChange={(path) => setWhen(path === "" ? null : { path: pathOf(path) }, "visibleWhen")}
        />
        {when ? (
          <SelectField
            label="Condition"
            value={when.operator}
            options={OPERATORS}
            error={problemAt(problems, "/visibleWhen/operator")}
            onChange={(operator) => setWhen({ operator: operator as VisibleWhen["operator"] }, "operator")}
          />
        ) : null}
        {when?.operator === "equals" || when?.operator === "notEquals" ? (
          <TextField label="Compared with" value={when.value === undefined ? "" : String(when.value)} error={problemAt(problems, "/visibleWhen/value")} onChange={(value) => setWhen({ value }, "value")} />
        ) : null}
      </Group>
    </>
  );
}
