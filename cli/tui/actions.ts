/** tui/actions: the operator's changes from the console — the CLI's services, audited as actor `system`/`cli`. */
import type { Config } from "../../src/config";
import type { Clock } from "../../src/lib/clock";
import { CreateApiKeyBody, type ApiKeyCreated } from "../../src/modules/api-keys/model";
import { createApiKey, revokeApiKey } from "../../src/modules/api-keys/service";
import { cancelRender, type RenderDeps, type RenderQueue } from "../../src/modules/renders/service";
import { AllowancesReplacement, type CompanyAllowances } from "../../src/modules/workspaces/model";
import { replaceAllowances, setSuspended } from "../../src/modules/workspaces/service";
import { StoreQueue } from "../../src/queue/store-queue";
import { openSpooledFiles } from "../../src/store/open-files";
import type { Store } from "../../src/store/store";
import { cliChange } from "../context";
import { checkInput, listOption, wholeNumber } from "../input";

/** The fields of the allowances form, in the order shown; `suspended` is changed with `s`, not in the form. */
export const ALLOWANCE_FIELDS = ["maxActiveRenders", "rendersPerMinute", "documentsPerMonth", "maxStorageBytes", "testRendersPerDay", "templateConversionsPerMonth"] as const;
export type AllowanceField = (typeof ALLOWANCE_FIELDS)[number];
const NULLABLE: ReadonlySet<AllowanceField> = new Set(["documentsPerMonth", "maxStorageBytes", "testRendersPerDay", "templateConversionsPerMonth"]);

// This process prints nothing: the serving process's worker notices a cancel in the store within its poll second.
const NO_QUEUE: RenderQueue = { cancel() {}, ended() {}, waitEnded: async () => undefined, claimAccepted: async () => {}, printAhead: () => undefined, letGo() {} };

/** Actions is what the screens may change; every method throws ApiError with the API's message on bad input. */
export class Actions {
  private readonly renders: RenderDeps;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    config: Config,
  ) {
    const files = openSpooledFiles(config, store, clock);
    this.renders = { store, clock, config, files, worker: NO_QUEUE, queue: new StoreQueue(store, clock, config.renderLeaseMs) };
  }

  /** setSuspended suspends or restores a workspace (`workspace.suspended`/`workspace.restored`, as `renderd suspend`). */
  async setSuspended(workspaceId: string, suspended: boolean): Promise<boolean> {
    return setSuspended(this.store, this.clock, cliChange(), workspaceId, suspended);
  }

  /** saveAllowances checks the form against the API's schema (spec 2.2 bounds) and replaces the allowances, keeping
   * the suspension as it is. A nullable field left empty means unlimited. */
  async saveAllowances(workspaceId: string, form: Record<AllowanceField, string>, suspended: boolean): Promise<CompanyAllowances> {
    const input: Record<string, unknown> = { suspended };
    for (const field of ALLOWANCE_FIELDS) {
      const raw = form[field].trim();
      input[field] = NULLABLE.has(field) && raw === "" ? null : wholeNumber(raw, NULLABLE.has(field));
    }
    const body = checkInput(AllowancesReplacement, input, "allowances", (field) => field);
    return replaceAllowances(this.store, this.clock, cliChange(), workspaceId, body);
  }

  /** createKey creates an API key (`api_key.created`); its secret is in the answer, shown once. */
  async createKey(workspaceId: string, name: string, scopes: string): Promise<ApiKeyCreated> {
    const body = checkInput(CreateApiKeyBody, { name: name.trim(), scopes: [...new Set(listOption(scopes, []))] }, "key", (field) => field);
    return createApiKey(this.store, this.clock, cliChange(), workspaceId, body);
  }

  /** revokeKey revokes an API key for good (`api_key.revoked`, as `renderd keys revoke`). */
  async revokeKey(workspaceId: string, keyId: string): Promise<void> {
    await revokeApiKey(this.store, this.clock, cliChange(), workspaceId, keyId);
  }

  /** cancel cancels a queued or processing render through the API's cancel service (409 once it has ended). */
  async cancel(workspaceId: string, renderId: string): Promise<void> {
    await cancelRender(this.renders, workspaceId, renderId);
  }
}
