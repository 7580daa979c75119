/** http/request-meta: the request id and client address of each request, fixed once when it arrives. */
import { isIdentifier, newId } from "../lib/ids";
import type { Actor, ChangeContext } from "../auth/actor";
import { Laps } from "../lib/laps";

export interface Meta {
  requestId: string;
  clientAddress: string;
  startedAt: number;
  /** The steps a route times from the request's arrival (a render's acceptance and its wait); the request's log line
   * carries them, with the answer's own step, when there are any. */
  laps: Laps;
}

/** RequestMeta remembers each in-flight request's Meta; entries vanish with their Request. */
export class RequestMeta {
  private readonly metas = new WeakMap<Request, Meta>();

  /** begin assigns the request id (the caller's when it is a valid Identifier, DESIGN.md 2) and address. */
  begin(request: Request, clientAddress: string): Meta {
    const given = request.headers.get("x-request-id");
    const laps = new Laps();
    const meta = { requestId: given && isIdentifier(given) ? given : newId("req"), clientAddress, startedAt: laps.startedAt, laps };
    this.metas.set(request, meta);
    return meta;
  }

  /** of answers the Meta of a request that went through begin. */
  of(request: Request): Meta {
    return this.metas.get(request) ?? this.begin(request, "unknown");
  }

  /** change answers the audit context of a change made by `principal` in this request. */
  change(request: Request, principal: { actor: Actor }): ChangeContext {
    return { actor: principal.actor, requestId: this.of(request).requestId };
  }
}
