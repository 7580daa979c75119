/** LimitsPage: the workspace's allowances and what it has used of them (spec 2.2, 8.1.2). */
import type { Access } from "../../api/access";
import { useRenderLimits } from "../../api/limits";
import { AllowancesForm } from "../../components/AllowancesForm";
import { formatBytes } from "../../components/format";
import { QueryState } from "../../components/QueryState";

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
                {l.templateConversionsThisMonth} template conversions this month.
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
