/** auth/actor: who makes a change (spec 2.7 `actorType`/`actorId`), known to auth before any module records it. */
import { Type, type Static } from "@sinclair/typebox";

export const ActorType = Type.Union([Type.Literal("user"), Type.Literal("api_key"), Type.Literal("system")]);
export type ActorType = Static<typeof ActorType>;

/** Actor is who made a change: a console user, an API key, or the operator's CLI (`system`/`cli`). */
export interface Actor {
  type: ActorType;
  id: string;
  name?: string;
  email?: string;
}

/** ChangeContext travels from the route to the service: who acts, under which request id. */
export interface ChangeContext {
  actor: Actor;
  requestId: string;
}

/** CLI_ACTOR is the actor of every change made with the admin CLI (DESIGN.md 3). */
export const CLI_ACTOR: Actor = { type: "system", id: "cli", name: "renderd CLI" };
