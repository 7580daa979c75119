/** doctor/ports: whether serve could listen on a port, and whether the renderd already serving answers on the internal one. */

/** listenError tries to listen on hostname:port and stops at once; answers null when it could, else the error code. */
export function listenError(hostname: string, port: number): string | null {
  try {
    Bun.listen({ hostname, port, socket: { data() {} } }).stop(true);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  }
}

/** renderdAnswers tells whether a renderd answers GET /health/live on INTERNAL_PORT: doctor then takes the ports as held by
 * the serve of the DATA_DIR it was given the same settings as (the internal port is 127.0.0.1 only: that serve is on this host). */
export async function renderdAnswers(internalPort: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${internalPort}/health/live`, { signal: AbortSignal.timeout(2000) });
    return res.ok && ((await res.json()) as { status?: unknown }).status === "ok";
  } catch {
    return false;
  }
}
