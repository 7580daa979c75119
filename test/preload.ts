/** preload: run by `bun test` before every test file (bunfig.toml); a hook registered here runs once for the whole run. */
import { afterAll } from "bun:test";
import { stopBackends } from "./backends";

afterAll(stopBackends);
