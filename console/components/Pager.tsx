/** Pager: the cursor stack of a paged list (spec 2.1) — next follows nextCursor, previous goes back. */
import { useState } from "react";

/** usePager keeps the cursors of the pages seen so far. */
export function usePager() {
  const [stack, setStack] = useState<string[]>([]);
  return {
    cursor: stack[stack.length - 1],
    hasPrevious: stack.length > 0,
    next: (cursor: string) => setStack([...stack, cursor]),
    previous: () => setStack(stack.slice(0, -1)),
    reset: () => setStack([]),
  };
}

/** PagerState is what usePager answers. */
export type PagerState = ReturnType<typeof usePager>;

/** Pager shows the previous and next buttons of a list. */
export function Pager({ pager, nextCursor }: { pager: PagerState; nextCursor?: string }) {
  if (!pager.hasPrevious && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={!pager.hasPrevious} onClick={pager.previous}>
        Previous page
      </button>
      <button type="button" className="secondary" disabled={!nextCursor} onClick={() => nextCursor && pager.next(nextCursor)}>
        Next page
      </button>
    </nav>
  );
}
