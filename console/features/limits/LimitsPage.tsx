/** LimitsPage: the workspace's allowances and what it has used of them (spec 2.2, 8.1.2). */
import type { RenderLimits } from "../../../src/modules/workspaces/model";
import type { Access } from "../../api/access";
import { useRenderLimits } from "../../api/limits";
import { AllowancesForm } from "../../components/AllowancesForm";
import { formatBytes } from "../../components/format";
import { QueryState } from "../../components/QueryState";

/** conversionsUsed writes this month's template conversions against their allowance (docs/conversions.md). */
function conversionsUsed(l: RenderLimits): string {
  const used = l.templateConversionsThisMonth;
  return l.templateConversionsPerMonth === null ? `${used} template conversions this month (no limit)` : `${used} of ${l.templateConversionsPerMonth} template conversions this month`;
}

/** LimitsPage shows the chosen workspace's allowances and usage counters. */
export function LimitsPage({ access }: { access: Access }) {
  const limits = useRenderLimits();
  const workspace = access.me.workspace;
  return (
    <section>
      <h1>Limits</h1>
      {workspace ? (
        <QueryState query={limits}>
          {(l) => (
            <>
              <p>
                Used: {l.documentsThisMonth} documents this month, {formatBytes(l.storageBytes)} of storage, {l.testRendersToday} test renders today,{" "}
                {conversionsUsed(l)}.
              </p>
              <AllowancesForm workspaceId={workspace.id} workspaceName={workspace.name} allowances={l} editable={access.platformAdmin} />
            </>
          )}
        </QueryState>
      ) : (
        <p className="empty">You are not a member of any workspace.</p>
      )}
    </section>
  );
}
