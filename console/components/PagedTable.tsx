/** PagedTable: a list query (spec 2.1 page) shown as a Table, with its loading, error and empty states and a pager. */
import type { ReactNode } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { Pager, type PagerState } from "./Pager";
import { QueryState } from "./QueryState";
import { Table, type TableProps } from "./Table";

interface Props<T> extends Omit<TableProps<T>, "items" | "children"> {
  query: UseQueryResult<{ items: T[]; nextCursor?: string }>;
  /** empty is what the page says when the list has no item. */
  empty: ReactNode;
  /** pager pages through the list; a list asked for whole has none. */
  pager?: PagerState;
}

/** PagedTable shows the query's page as a table with the pager below it, or the empty text when there is no item. */
export function PagedTable<T>({ query, empty, pager, ...table }: Props<T>) {
  return (
    <QueryState query={query} isEmpty={(p) => p.items.length === 0} empty={empty}>
      {(page) => (
        <Table {...table} items={page.items}>
          {pager ? <Pager pager={pager} nextCursor={page.nextCursor} /> : null}
        </Table>
      )}
    </QueryState>
  );
}
