/** tui/use-snapshot: loads the snapshot now and every `intervalMs`, outside rendering; the screens only read it. */
import { useCallback, useEffect, useRef, useState } from "react";

/** useSnapshot answers the latest loaded value (null until the first load), the last load error, and `reload`. */
export function useSnapshot<T>(load: () => Promise<T>, intervalMs: number): { value: T | null; error: string | null; reload: () => void } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(load);
  latest.current = load;
  const busy = useRef(false);
  const again = useRef(false);
  const reload = useCallback(() => {
    // One load at a time: a slow store or internal port must not pile loads up. A reload asked meanwhile (after an
    // action) loads once more when this one ends: the load in flight may have read the store before the change.
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    again.current = false;
    latest
      .current()
      .then((v) => {
        setValue(v);
        setError(null);
      })
      .catch((e: unknown) => setError((e as Error).message))
      .finally(() => {
        busy.current = false;
        if (again.current) reload();
      });
  }, []);
  useEffect(() => {
    reload();
    const timer = setInterval(reload, intervalMs);
    return () => clearInterval(timer);
  }, [reload, intervalMs]);
  return { value, error, reload };
}
