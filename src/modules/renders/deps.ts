/** renders/deps: what the render operations take from the app, shared by the renders and reports routes. */
import type { AppContext } from "../../context";
import type { RenderDeps } from "./service";

/** renderDeps gives the render operations what they need from the app. */
export function renderDeps(app: AppContext): RenderDeps {
  return { store: app.store, clock: app.clock, config: app.config, files: app.files, worker: app.worker, queue: app.worker.queue };
}
