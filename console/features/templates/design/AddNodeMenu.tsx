/** AddNodeMenu: the button "Add node" and its menu of node types (Text, Image, Table, Repeat, Container, Component);
 * each new node starts with what it needs to print — a table has one empty column, bound to the data's first list. */
import { useEffect, useRef, useState } from "react";
import type { Node, NodeType } from "../draft/nodes";

const TYPES: [NodeType, string][] = [
  ["text", "Text"],
  ["image", "Image"],
  ["table", "Table"],
  ["repeat", "Repeat"],
  ["container", "Container"],
  ["component", "Component"],
];

/** Start is what a new node is made from: the data's first list, the first image asset and the first component. */
export interface Start {
  firstList?: string[];
  firstImage?: string;
  firstComponent?: string;
}

/** newNode answers a node of a type, ready to print or with the one field to fill shown as a problem. */
export function newNode(type: NodeType, start: Start): Node {
  const source = { path: start.firstList ?? ["items"] };
  switch (type) {
    case "text":
      return { type: "text", text: "New text" };
    case "image":
      return { type: "image", assetId: start.firstImage ?? "" };
    case "table":
      return { type: "table", source, columns: [{ id: "column1", header: "", value: "" }] };
    case "repeat":
      return { type: "repeat", source, children: [{ type: "text", text: "New item" }] };
    case "container":
      return { type: "container", children: [] };
    case "component":
      return { type: "component", componentId: start.firstComponent ?? "" };
  }
}

/** AddNodeMenu offers the node types; `onAdd` adds one. */
export function AddNodeMenu({ onAdd }: { onAdd: (type: NodeType) => void }) {
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLUListElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>("[role=menuitem]")?.focus();
    const away = (e: MouseEvent) => !menu.current?.parentElement?.contains(e.target as globalThis.Node) && setOpen(false);
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  return (
    <div className="menu-host">
      <button type="button" ref={button} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        Add node
      </button>
      {open ? (
        <ul
          role="menu"
          aria-label="Add node"
          ref={menu}
          className="menu"
          onKeyDown={(e) => {
            const items = Array.from(menu.current?.querySelectorAll<HTMLButtonElement>("[role=menuitem]") ?? []);
            const i = items.indexOf(document.activeElement as HTMLButtonElement);
            if (e.key === "Escape") close();
            else if (e.key === "ArrowDown") items[(i + 1) % items.length]?.focus();
            else if (e.key === "ArrowUp") items[(i - 1 + items.length) % items.length]?.focus();
            else return;
            e.preventDefault();
          }}
        >
          {TYPES.map(([type, label]) => (
            <li key={type} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => {
                  onAdd(type);
                  setOpen(false);
                }}
              >
                {label}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
