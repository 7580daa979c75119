/** NodeProperties: the form "Node properties" — the fields the selected node's type has, each with the API's problem
 * for it beside it; a problem no field shows is listed at the top. */
import type { Problem } from "../JsonEditor";
import { nodeAt, nodeLabel, type Draft, type Node } from "../draft/nodes";
import { paths, rowSchema, scopeSchema } from "../draft/schema";
import { withPath } from "../draft/values";
import { CommonFields } from "./CommonFields";
import { PathField, problemAt, SelectField } from "./fields";
import { ImageFields } from "./ImageFields";
import { ListFields } from "./ListFields";
import { ValueFields } from "./ValueFields";

interface Props {
  draft: Draft;
  at: string | null;
  onChange: (node: Node, field: string) => void;
  /** The problems of the node, their paths relative to it. */
  problems: Problem[];
}

// The fields each type shows, by the path of what they edit: a problem elsewhere is listed at the top.
const FIELDS: Record<Node["type"], string[]> = {
  text: ["/text"],
  table: ["/source", "/columns", "/emptyText"],
  repeat: ["/source"],
  image: ["/assetId", "/width", "/height"],
  component: ["/componentId", "/data"],
  container: [],
};
const COMMON = ["/className", "/tw", "/visibleWhen"];

// The page number and count are values in the header and footer only.
const PAGE_PATHS = ["$page.number", "$page.count"];

function ComponentFields({ node, draft, onChange, problems, values }: { node: Extract<Node, { type: "component" }>; draft: Draft; onChange: Props["onChange"]; problems: Problem[]; values: string[] }) {
  const ids = Object.keys(draft.components ?? {});
  const data = node.data && "path" in node.data ? node.data : null;
  return (
    <>
      <SelectField
        label="Component"
        value={node.componentId}
        options={[...(ids.includes(node.componentId) ? [] : [[node.componentId, node.componentId || "No component yet"] as [string, string]]), ...ids.map((id): [string, string] => [id, id])]}
        hint={ids.length ? undefined : "The draft has no components: add them to `components` in the JSON tab."}
        error={problemAt(problems, "/componentId")}
        onChange={(componentId) => onChange({ ...node, componentId }, "componentId")}
      />
      <PathField
        label="Data path"
        path={data?.path}
        paths={values}
        hint="The component's data. Empty: the data where it is used."
        error={problemAt(problems, "/data")}
        onChange={(path) => {
          const { data: _, ...rest } = node;
          onChange(path === "" ? rest : { ...rest, data: withPath(path, node.data) as typeof data & object }, "data");
        }}
      />
    </>
  );
}

/** NodeProperties edits the selected node. */
export function NodeProperties({ draft, at, onChange, problems }: Props) {
  const node = at ? nodeAt(draft, at) : undefined;
  if (!at || !node)
    return (
      <form aria-label="Node properties" className="node-properties" onSubmit={(e) => e.preventDefault()}>
        <p className="hint">Select a node in the outline to edit it, or add one.</p>
      </form>
    );
  const marginal = at.startsWith("/header") || at.startsWith("/footer");
  const scope = paths(scopeSchema(draft, at));
  const values = [...scope.map((p) => p.path), ...(marginal ? PAGE_PATHS : [])];
  const lists = scope.filter((p) => p.list).map((p) => p.path);
  const rowPaths = paths(rowSchema(draft, at)).map((p) => p.path);
  const shown = [...COMMON, ...FIELDS[node.type]];
  const elsewhere = problems.filter((p) => !shown.some((f) => p.path === f || p.path.startsWith(`${f}/`)));
  return (
    <form aria-label="Node properties" className="node-properties" onSubmit={(e) => e.preventDefault()}>
      <h3>{nodeLabel(node)}</h3>
      {elsewhere.length ? (
        <div className="notice error" role="alert">
          <ul>
            {elsewhere.map((p, i) => (
              <li key={i}>
                {p.path ? <code>{p.path}</code> : null} {p.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {node.type === "text" ? (
        <ValueFields
          value={node.text}
          paths={values}
          problems={problems.filter((p) => p.path.startsWith("/text")).map((p) => ({ ...p, path: p.path.slice("/text".length) }))}
          onChange={(text, field) => onChange({ ...node, text }, field)}
        />
      ) : null}
      {node.type === "table" || node.type === "repeat" ? <ListFields node={node} onChange={onChange} problems={problems} lists={lists} rowPaths={rowPaths} /> : null}
      {node.type === "image" ? <ImageFields node={node} onChange={onChange} problems={problems} paths={values} /> : null}
      {node.type === "component" ? <ComponentFields node={node} draft={draft} onChange={onChange} problems={problems} values={values} /> : null}
      <CommonFields node={node} onChange={onChange} problems={problems} paths={values} />
    </form>
  );
}
