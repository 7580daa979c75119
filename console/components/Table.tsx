/** Table: the console's one way to show a list as a table — a frame that scrolls sideways on a phone, a header row
 * from the columns, a row per item. */
import type { ReactNode } from "react";

/** Column is one column of a Table: its header and what its cell shows for an item. */
export interface Column<T> {
  header: string;
  cell: (item: T) => ReactNode;
  /** className of the column's cells (styles.css sizes `scopes` and `actions`). */
  className?: string;
}

/** TableProps are the columns, the items, each item's row key and what follows the table inside its frame. */
export interface TableProps<T> {
  columns: Column<T>[];
  items: T[];
  rowKey: (item: T) => string;
  children?: ReactNode;
}

/** Table renders the items as rows under the columns' headers; children (a pager) follow inside the frame. */
export function Table<T>({ columns, items, rowKey, children }: TableProps<T>) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header}>{c.header}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={rowKey(item)}>
              {columns.map((c) => (
                <td key={c.header} className={c.className}>
                  {c.cell(item)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {children}
    </div>
  );
}
