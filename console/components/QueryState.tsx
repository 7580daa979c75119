/** QueryState renders a query's loading, error and empty states, and its data once there is some. */
import type { ReactNode } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { ErrorNotice } from "./ErrorNotice";

interface Props<T> {
  query: UseQueryResult<T>;
  /** isEmpty tells whether the data has nothing to show. */
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}

/** QueryState shows loading, error or empty, else renders children with the data. */
export function QueryState<T>({ query, isEmpty, empty, children }: Props<T>) {
  if (query.isPending) return <p aria-busy="true">Loading…</p>;
  if (query.isError) return <ErrorNotice error={query.error} />;
  if (isEmpty?.(query.data)) return <p className="empty">{empty ?? "Nothing here yet."}</p>;
  return <>{children(query.data)}</>;
}
