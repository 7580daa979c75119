/** cli/allowances: `renderd allowances get|set` — a workspace's allowances, with the replace semantics of PUT /v1/companies/{id}/allowances. */
import { Command } from "commander";
import { AllowancesReplacement, type CompanyAllowances } from "../src/modules/workspaces/model";
import { getAllowances, getWorkspace, replaceAllowances } from "../src/modules/workspaces/service";
import { cliChange, guard, print, storeOptions, withStore } from "./context";
import { checkInput, trueOrFalse, wholeNumber } from "./input";

interface GetFlags {
  workspace: string;
  json?: boolean;
  dataDir?: string;
}

interface SetFlags extends GetFlags {
  maxActiveRenders: string;
  rendersPerMinute: string;
  documentsPerMonth?: string;
  maxStorageBytes?: string;
  testRendersPerDay?: string;
  templateConversionsPerMonth?: string;
  suspended?: string;
}

const NULLABLE = ["documentsPerMonth", "maxStorageBytes", "testRendersPerDay", "templateConversionsPerMonth"] as const;

function describeAllowances(a: CompanyAllowances): string {
  const rows = Object.entries(a).map(([k, v]) => [k, v === null ? "null (unlimited)" : String(v)]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n");
}

/** allowancesCommand builds `renderd allowances` and its subcommands. */
export function allowancesCommand(): Command {
  const cmd = new Command("allowances").description("read and replace a workspace's allowances (spec 2.2, 4.2)");

  cmd.addCommand(
    storeOptions(
      new Command("get")
        .description("print a workspace's seven allowance fields")
        .requiredOption("--workspace <id|slug>", "workspace to read"),
    ).action(
      guard(async (flags: GetFlags) => {
        await withStore(async ({ store }) => {
          const allowances = await getAllowances(store, flags.workspace);
          print(!!flags.json, allowances, () => describeAllowances(allowances));
        }, flags.dataDir);
      }),
    ),
  );

  cmd.addCommand(
    storeOptions(
      new Command("set")
        .description("replace every allowance of a workspace, like PUT /v1/companies/{id}/allowances (audited as system/cli)")
        .requiredOption("--workspace <id|slug>", "workspace to change")
        .requiredOption("--max-active-renders <n>", "renders queued or processing at once")
        .requiredOption("--renders-per-minute <n>", "renders accepted per minute")
        .option("--documents-per-month <n|null>", "documents per calendar month; null or omitted = unlimited")
        .option("--max-storage-bytes <n|null>", "bytes of assets and outputs kept; null or omitted = unlimited")
        .option("--test-renders-per-day <n|null>", "test renders per day; null or omitted = unlimited")
        .option("--template-conversions-per-month <n|null>", "template conversions per month; null or omitted = unlimited")
        .option("--suspended <true|false>", "suspend the workspace; omitted = false (restores it)")
        .addHelpText(
          "after",
          [
            "",
            "This replaces the allowances as a whole: an omitted nullable option becomes null (unlimited), and an omitted",
            "--suspended becomes false, which restores a suspended workspace. Read the current values with",
            "`renderd allowances get` first; use `renderd suspend` and `renderd restore` to change suspension alone.",
            "Bounds are those of the API (spec 2.2); a value outside them is refused naming the field.",
          ].join("\n"),
        ),
    ).action(
      guard(async (flags: SetFlags) => {
        const input: Record<string, unknown> = {
          maxActiveRenders: wholeNumber(flags.maxActiveRenders),
          rendersPerMinute: wholeNumber(flags.rendersPerMinute),
        };
        for (const field of NULLABLE) if (flags[field] !== undefined) input[field] = wholeNumber(flags[field], true);
        if (flags.suspended !== undefined) input.suspended = trueOrFalse(flags.suspended);
        const body = checkInput(AllowancesReplacement, input, "allowances");
        await withStore(async ({ store, clock }) => {
          const ws = await getWorkspace(store, flags.workspace);
          const allowances = await replaceAllowances(store, clock, cliChange(), ws.id, body);
          print(!!flags.json, allowances, () => `replaced the allowances of workspace ${ws.slug} (${ws.id})\n${describeAllowances(allowances)}`);
        }, flags.dataDir);
      }),
    ),
  );

  return cmd;
}
