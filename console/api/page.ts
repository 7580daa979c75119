/** api/page: the console's one way to ask for a page of a list (spec 2.1). */
import { type QueryKey, useQuery, type UseQueryOptions } from "@tanstack/react-query";
import { api, query } from "./client";

/** usePage asks for one page of the list at path, with params (cursor, filters, limit) as its query string; the
 * answer is cached under queryKey and the params. */
export function usePage<P extends { items: unknown[] }>(queryKey: QueryKey, path: string, params: Parameters<typeof query>[0], options: Pick<UseQueryOptions<P>, "refetchInterval"> = {}) {
  return useQuery({ ...options, queryKey: [...queryKey, params], queryFn: () => api<P>(`${path}${query(params)}`) });
}
