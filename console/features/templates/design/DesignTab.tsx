/** DesignTab: the draft built by pointing — the outline, the buttons that add, move and delete nodes and undo and
 * redo (also Ctrl+Z and Ctrl+Shift+Z), the selected node's properties, and the page settings. Every change is a new
 * draft in the one history the JSON tab shares. */
import { useEffect, useMemo, useRef } from "react";
import type { Problem } from "../JsonEditor";
import { useImageAssets } from "../api";
import { insertNode, moveNode, nodeAt, nodeOfProblem, outline, placeAfter, placeOf, removeNode, replaceNode, wrapRoot, type Draft, type NodeType } from "../draft/nodes";
import { paths } from "../draft/schema";
import { fromText, pathOf } from "../draft/values";
import type { DraftEditor } from "../draft/useDraftEditor";
import { AddNodeMenu, newNode } from "./AddNodeMenu";
import { NodeProperties } from "./NodeProperties";
import { Outline } from "./Outline";
import { PageFields } from "./PageFields";

interface Props {
  editor: DraftEditor;
  selected: string | null;
  onSelect: (at: string | null) => void;
  /** The draft's problems, their paths from the draft's root. */
  problems: Problem[];
}

/** useUndoKeys binds Ctrl+Z to undo and Ctrl+Shift+Z (or Ctrl+Y) to redo, except inside a code editor, which has its own. */
function useUndoKeys(editor: DraftEditor) {
  const latest = useRef(editor);
  latest.current = editor;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || (e.target as Element | null)?.closest?.(".cm-editor")) return;
      const key = e.key.toLowerCase();
      if (key === "z" && !e.shiftKey) latest.current.undo();
      else if ((key === "z" && e.shiftKey) || key === "y") latest.current.redo();
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}

/** DesignTab edits the draft's nodes. */
export function DesignTab({ editor, selected, onSelect, problems }: Props) {
  const { draft } = editor;
  const images = useImageAssets().images;
  useUndoKeys(editor);
  const items = useMemo(() => outline(draft), [draft]);
  const current = selected && nodeAt(draft, selected) ? selected : null;

  const byNode = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const p of problems) {
      const at = nodeOfProblem(draft, p.path);
      if (at) map.set(at, [...(map.get(at) ?? []), p.path === at ? p.message : `${p.path.slice(at.length + 1)}: ${p.message}`]);
    }
    return map;
  }, [draft, problems]);

  const edit = (next: Draft, select: string | null, key?: string) => {
    editor.edit(next, key);
    onSelect(select);
  };

  const add = (type: NodeType) => {
    const firstList = paths(draft.dataSchema).find((p) => p.list)?.path;
    const node = newNode(type, { firstList: firstList ? pathOf(firstList) : undefined, firstImage: images[0]?.id, firstComponent: Object.keys(draft.components ?? {})[0] });
    let base = draft;
    let place = placeAfter(base, current);
    if (!place) {
      // A root that holds no children (the content is one text) is put in a container, and the node beside it.
      const root = (current ?? "/content").split("/")[1] as "content" | "header" | "footer";
      base = wrapRoot(draft, root);
      place = { list: `/${root}/children`, index: 1 };
    }
    edit(insertNode(base, place, node), `${place.list}/${place.index}`);
  };

  const place = current ? placeOf(current) : null;
  const siblings = place ? ((nodeAt(draft, place.list.replace(/\/(children|empty)$/, "")) as { children?: unknown[]; empty?: unknown[] } | undefined)?.[place.list.endsWith("empty") ? "empty" : "children"]?.length ?? 0) : 0;
  const move = (by: number) => {
    if (!current || !place) return;
    const moved = moveNode(draft, current, { list: place.list, index: place.index + (by < 0 ? by : by + 1) });
    if (moved) edit(moved.draft, moved.at);
  };
  const remove = () => {
    if (!current) return;
    const next = place ? (place.index > 0 ? `${place.list}/${place.index - 1}` : place.list.replace(/\/(children|empty)$/, "")) : null;
    edit(removeNode(draft, current), next);
  };
  const deletable = current !== null && current !== "/content";

  return (
    <div className="design">
      <div className="toolbar" role="toolbar" aria-label="Design">
        <AddNodeMenu onAdd={add} />
        <button type="button" className="secondary" disabled={!place || place.index === 0} onClick={() => move(-1)}>
          Move up
        </button>
        <button type="button" className="secondary" disabled={!place || place.index >= siblings - 1} onClick={() => move(1)}>
          Move down
        </button>
        <button type="button" className="secondary" disabled={!deletable} onClick={remove}>
          Delete node
        </button>
        <button type="button" className="secondary" disabled={!editor.canUndo} onClick={editor.undo} aria-keyshortcuts="Control+Z">
          Undo
        </button>
        <button type="button" className="secondary" disabled={!editor.canRedo} onClick={editor.redo} aria-keyshortcuts="Control+Shift+Z">
          Redo
        </button>
      </div>
      <div className="design-panes">
        <Outline
          items={items}
          selected={current}
          onSelect={onSelect}
          problems={byNode}
          onMove={(from, to) => {
            const moved = moveNode(draft, from, to);
            if (moved) edit(moved.draft, moved.at);
          }}
        />
        <NodeProperties
          key={current ?? "none"}
          draft={draft}
          at={current}
          problems={current ? problems.filter((p) => nodeOfProblem(draft, p.path) === current).map((p) => ({ ...p, path: p.path.slice(current.length) })) : []}
          onChange={(node, field) => current && edit(replaceNode(draft, current, node), current, `${current}:${field}`)}
        />
      </div>
      <PageFields
        draft={draft}
        problems={problems}
        onChange={(next, field) => editor.edit(next, field)}
        onAddMarginal={(where) => edit({ ...draft, [where]: { type: "text", text: where === "footer" ? fromText("Page {$page.number} of {$page.count}") : "Header" } }, `/${where}`)}
      />
    </div>
  );
}
