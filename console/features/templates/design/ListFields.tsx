/** ListFields: the fields of a table or a repeat — its Data source (one of the data schema's lists), and a table's
 * columns, each with its Header and Value path (the row's paths), and Add column. */
import type { Problem } from "../JsonEditor";
import type { Node } from "../draft/nodes";
import { withExpression, withPath, type TextValue } from "../draft/values";
import { Group, PathField, problemAt, TextField } from "./fields";
import { ValueFields } from "./ValueFields";

type Table = Extract<Node, { type: "table" }>;
type Repeat = Extract<Node, { type: "repeat" }>;
type Column = Table["columns"][number];

interface Props<N> {
  node: N;
  onChange: (node: Node, field: string) => void;
  problems: Problem[];
  /** The lists the data schema has, in the node's scope. */
  lists: string[];
  /** The paths of one row (the data schema's items of the source). */
  rowPaths: string[];
}

/** SourceField is a table's or repeat's Data source: a list path, or the expression that gives the rows. */
function SourceField({ node, onChange, problems, lists }: Omit<Props<Table | Repeat>, "rowPaths">) {
  const source = node.source as { path?: string[]; expression?: string };
  if (source.expression !== undefined)
    return (
      <TextField
        label="Data source expression"
        value={source.expression}
        error={problemAt(problems, "/source")}
        onChange={(e) => onChange({ ...node, source: e === "" ? { path: [] } : (withExpression(e, node.source) as Table["source"]) }, "source")}
      />
    );
  return (
    <PathField
      label="Data source"
      path={source.path ?? []}
      paths={lists}
      hint="A list in the data: the rows."
      error={problemAt(problems, "/source")}
      onChange={(path) => onChange({ ...node, source: withPath(path, node.source) as Table["source"] }, "source")}
    />
  );
}

/** newColumn answers an empty column whose id no other column has. */
export function newColumn(columns: readonly Column[]): Column {
  let n = columns.length + 1;
  while (columns.some((c) => c.id === `column${n}`)) n++;
  return { id: `column${n}`, header: "", value: "" };
}

function ColumnFields({ table, index, onChange, problems, rowPaths }: { table: Table; index: number } & Omit<Props<Table>, "node" | "lists">) {
  const column = table.columns[index]!;
  const at = `/columns/${index}`;
  const setColumn = (next: Column, field: string) => onChange({ ...table, columns: table.columns.map((c, i) => (i === index ? next : c)) }, `column${index}.${field}`);
  return (
    <Group legend={`Column ${index + 1}`}>
      <TextField label="Header" value={column.header} error={problemAt(problems, `${at}/header`)} onChange={(header) => setColumn({ ...column, header }, "header")} />
      <ValueFields
        value={column.value}
        paths={rowPaths}
        labels={{ text: "Value text", path: "Value path", expression: "Value expression" }}
        problems={problems.filter((p) => p.path.startsWith(`${at}/value`)).map((p) => ({ ...p, path: p.path.slice(`${at}/value`.length) }))}
        onChange={(value: TextValue, field) => setColumn({ ...column, value }, field)}
      />
      <button
        type="button"
        className="secondary outline"
        disabled={table.columns.length === 1}
        onClick={() => onChange({ ...table, columns: table.columns.filter((_, i) => i !== index) }, "columns")}
      >
        Remove column
      </button>
    </Group>
  );
}

/** ListFields edits a table's or a repeat's own fields. */
export function ListFields({ node, onChange, problems, lists, rowPaths }: Props<Table | Repeat>) {
  return (
    <>
      <SourceField node={node} onChange={onChange} problems={problems} lists={lists} />
      {node.type === "table" ? (
        <>
          <TextField
            label="Text when empty"
            value={node.emptyText ?? ""}
            error={problemAt(problems, "/emptyText")}
            onChange={(text) => {
              const { emptyText: _, ...rest } = node;
              onChange(text === "" ? rest : { ...rest, emptyText: text }, "emptyText");
            }}
          />
          {node.columns.map((_, i) => (
            <ColumnFields key={i} table={node} index={i} onChange={onChange} problems={problems} rowPaths={rowPaths} />
          ))}
          <button type="button" className="secondary" disabled={node.columns.length >= 30} onClick={() => onChange({ ...node, columns: [...node.columns, newColumn(node.columns)] }, "columns")}>
            Add column
          </button>
        </>
      ) : null}
    </>
  );
}
