/** version: the release of this build, shown by `renderd --version`, /internal/state and the TUI. */
export const VERSION = "0.0.0";
