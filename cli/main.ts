#!/usr/bin/env bun
/** cli/main: the `renderd` binary — serve, and the operator's commands acting on DATA_DIR. */
import { Command } from "commander";
import { migrateCommand } from "./migrate";
import { serveCommand } from "./serve";

const program = new Command("renderd")
  .description("renderd: self-hosted document rendering appliance")
  .version("0.0.0")
  .showHelpAfterError()
  .addCommand(serveCommand())
  .addCommand(migrateCommand());

await program.parseAsync(process.argv);
