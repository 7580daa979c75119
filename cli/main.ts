#!/usr/bin/env bun
/** cli/main: the `renderd` binary — serve, and the operator's commands acting on DATA_DIR. */
import { Command } from "commander";
import { allowancesCommand } from "./allowances";
import { backupCommand } from "./backup";
import { doctorCommand } from "./doctor";
import { keysCommand } from "./keys";
import { migrateCommand } from "./migrate";
import { serveCommand } from "./serve";
import { tuiCommand } from "./tui";
import { restoreCommand, suspendCommand } from "./suspension";
import { usageCommand } from "./usage";
import { usersCommand } from "./users";
import { versionLine } from "../src/version";
import { webhooksCommand } from "./webhooks";
import { workspacesCommand } from "./workspaces";

const program = new Command("renderd")
  .description("renderd: self-hosted document rendering appliance")
  .version(versionLine())
  .showHelpAfterError()
  .addCommand(serveCommand())
  .addCommand(migrateCommand())
  .addCommand(workspacesCommand())
  .addCommand(usersCommand())
  .addCommand(keysCommand())
  .addCommand(allowancesCommand())
  .addCommand(suspendCommand())
  .addCommand(restoreCommand())
  .addCommand(webhooksCommand())
  .addCommand(usageCommand())
  .addCommand(backupCommand())
  .addCommand(doctorCommand())
  .addCommand(tuiCommand());

await program.parseAsync(process.argv);
