/** http/routes-index: which methods a path answers, so a wrong method gets 405 with `Allow` instead of 404. */

interface RouteLike {
  method: string;
  path: string;
}

/** RoutesIndex matches a concrete path against the app's route patterns (`/v1/api-keys/:id/rotate`). */
export class RoutesIndex {
  private readonly patterns: Array<{ regex: RegExp; method: string }>;

  constructor(routes: RouteLike[]) {
    this.patterns = routes.map((r) => ({
      method: r.method.toUpperCase(),
      regex: new RegExp("^" + r.path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/") + "$"),
    }));
  }

  /** allowedMethods answers the methods routed for `path`; empty when the path is unknown. */
  allowedMethods(path: string): string[] {
    const methods = new Set(this.patterns.filter((p) => p.regex.test(path)).map((p) => p.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  }
}
