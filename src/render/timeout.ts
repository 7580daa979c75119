/** timeout: the one way the pool bounds a wait on Chromium (a page that does not open, close or reset; a browser that does not answer). */

/** within answers what `promise` resolves to, or null when it takes longer than `ms` (a rejection still rejects). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
