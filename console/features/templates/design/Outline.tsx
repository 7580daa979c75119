/** Outline: the tree "Document outline" — every node of the draft as a treeitem named by its type and its text or
 * source (`text Invoice`, `table lines`), a node with a problem marked with it; arrows move the selection, and a node
 * is dragged before, after or (onto the middle of a container) into another. */
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from "react";
import { hasChildren, isInside, placeOf, type OutlineItem, type Place } from "../draft/nodes";

type Zone = "before" | "after" | "inside";

interface Props {
  items: OutlineItem[];
  selected: string | null;
  onSelect: (at: string) => void;
  onMove: (from: string, to: Place) => void;
  /** The problems of each node, by its pointer. */
  problems: Map<string, string[]>;
}

const REGION: Record<OutlineItem["root"], string> = { content: "Content", header: "Header", footer: "Footer" };

function zoneOf(e: DragEvent, item: OutlineItem): Zone | null {
  const box = e.currentTarget.getBoundingClientRect();
  const y = (e.clientY - box.top) / box.height;
  const container = hasChildren(item.node);
  if (container && (y > 0.25 || !placeOf(item.at)) && (y < 0.75 || !placeOf(item.at))) return "inside";
  if (!placeOf(item.at)) return null;
  return y < 0.5 ? "before" : "after";
}

function placeFor(item: OutlineItem, zone: Zone): Place {
  if (zone === "inside") return { list: `${item.at}/children`, index: hasChildren(item.node) ? item.node.children.length : 0 };
  const place = placeOf(item.at)!;
  return zone === "before" ? place : { list: place.list, index: place.index + 1 };
}

/** Outline shows the draft's nodes and lets one be selected or moved. */
export function Outline({ items, selected, onSelect, onMove, problems }: Props) {
  // The node being dragged: a ref, because the first dragover can come before React has drawn the drag's start.
  const dragging = useRef<string | null>(null);
  const [dragged, setDragged] = useState<string | null>(null);
  const [drop, setDrop] = useState<{ at: string; zone: Zone } | null>(null);
  const rows = useRef(new Map<string, HTMLLIElement>());
  const tree = useRef<HTMLUListElement>(null);
  const focusable = selected && items.some((i) => i.at === selected) ? selected : items[0]?.at;

  // The arrow keys move the selection; the focus follows it while it is in the tree.
  useEffect(() => {
    if (selected && tree.current?.contains(document.activeElement)) rows.current.get(selected)?.focus();
  }, [selected]);

  const onKeyDown = (e: KeyboardEvent) => {
    const i = items.findIndex((item) => item.at === focusable);
    const next = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: items.length - 1 }[e.key];
    if (next === undefined || !items[next]) return;
    e.preventDefault();
    onSelect(items[next].at);
  };

  return (
    <ul role="tree" aria-label="Document outline" className="outline" ref={tree} onKeyDown={onKeyDown}>
      {items.map((item) => {
        const issues = problems.get(item.at);
        const zone = drop?.at === item.at ? drop.zone : undefined;
        const [type, ...what] = item.label.split(" ");
        return (
          <li
            key={item.at}
            ref={(el) => void (el ? rows.current.set(item.at, el) : rows.current.delete(item.at))}
            role="treeitem"
            aria-label={item.label}
            aria-level={item.depth + 1}
            aria-selected={item.at === selected}
            aria-invalid={issues ? true : undefined}
            aria-describedby={issues ? `problem-${item.at}` : undefined}
            tabIndex={item.at === focusable ? 0 : -1}
            className={["outline-item", zone ? `drop-${zone}` : "", item.at === dragged ? "dragging" : ""].join(" ")}
            style={{ paddingLeft: `${0.5 + item.depth * 1.1}rem` }}
            draggable={placeOf(item.at) !== null}
            onClick={() => onSelect(item.at)}
            onDragStart={(e) => {
              e.dataTransfer.setData("text/plain", item.at);
              e.dataTransfer.effectAllowed = "move";
              dragging.current = item.at;
              setDragged(item.at);
            }}
            onDragEnd={() => {
              dragging.current = null;
              setDragged(null);
              setDrop(null);
            }}
            onDragOver={(e) => {
              const from = dragging.current;
              const z = from && !isInside(item.at, from) ? zoneOf(e, item) : null;
              if (!z) return setDrop(null);
              e.preventDefault();
              e.dataTransfer.dropEffect = "move";
              if (z !== zone) setDrop({ at: item.at, zone: z });
            }}
            onDrop={(e) => {
              e.preventDefault();
              const from = dragging.current;
              const z = from && !isInside(item.at, from) ? zoneOf(e, item) : null;
              if (from && z) onMove(from, placeFor(item, z));
              dragging.current = null;
              setDragged(null);
              setDrop(null);
            }}
          >
            {item.depth === 0 && item.root !== "content" ? (
              <span className="region" aria-hidden="true">
                {REGION[item.root]}
              </span>
            ) : null}
            <span className="node-type">{type}</span> <span className="node-what">{what.join(" ")}</span>
            {issues ? (
              <small className="node-problem" id={`problem-${item.at}`}>
                ⚠ {issues.join("; ")}
              </small>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
