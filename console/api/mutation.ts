/** api/mutation: the console's one shape of a change — call the API, then refresh the answers it made stale. */
import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";

/** useRefreshingMutation runs mutationFn and, once it succeeds, marks every cached answer under queryKey stale so the
 * views showing them ask again (the mutation settles after that refresh). */
export function useRefreshingMutation<TVariables = void, TData = unknown>(queryKey: QueryKey, mutationFn: (variables: TVariables) => Promise<TData>) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => client.invalidateQueries({ queryKey }) });
}
