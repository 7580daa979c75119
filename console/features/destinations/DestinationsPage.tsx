/** DestinationsPage: the workspace's destinations (owners and admins) — create, edit, test, delete — and one
 * destination's deliveries with status, attempts, where the file went or why it did not (docs/destinations.md). */
import { Link, useLocation } from "wouter";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import { QueryState } from "../../components/QueryState";
import type { Column } from "../../components/Table";
import type { Destination, DestinationDelivery } from "../../../src/modules/destinations/model";
import { useCreateDestination, useDestination, useDestinationAction, useDestinationDeliveries, useDestinations, useUpdateDestination } from "./api";
import { DestinationForm } from "./DestinationForm";

const DESTINATION_COLUMNS: Column<Destination>[] = [
  { header: "Name", cell: (d) => <Link href={`/destinations/${d.id}`}>{d.name}</Link> },
  { header: "Type", cell: (d) => d.type },
  { header: "Created", cell: (d) => formatDate(d.createdAt) },
];

const DELIVERY_COLUMNS: Column<DestinationDelivery>[] = [
  { header: "Render", cell: (d) => <Link href={`/renders/${d.renderId}`}>{d.renderId}</Link> },
  { header: "Status", cell: (d) => d.status },
  { header: "Attempts", cell: (d) => d.attempts },
  { header: "Where or why", cell: (d) => d.location ?? d.lastError ?? "—" },
  { header: "Last attempt", cell: (d) => formatDate(d.lastAttemptAt) },
];

/** DestinationsPage lists destinations and adds one. */
export function DestinationsPage() {
  const destinations = useDestinations();
  const create = useCreateDestination();
  const [, navigate] = useLocation();
  return (
    <section>
      <h1>Destinations</h1>
      <p>renderd delivers a render's PDF to the destinations it names in destinationIds, once it succeeds.</p>
      <PagedTable query={destinations} empty="No destinations yet: add one below." columns={DESTINATION_COLUMNS} rowKey={(d) => d.id} />
      <h2>Add destination</h2>
      <DestinationForm submitLabel="Add destination" pending={create.isPending} error={create.error} onSubmit={(body) => create.mutate(body, { onSuccess: (d) => navigate(`/destinations/${d.id}`) })} />
    </section>
  );
}

function Deliveries({ id }: { id: string }) {
  const pager = usePager();
  const deliveries = useDestinationDeliveries(id, pager.cursor);
  return <PagedTable query={deliveries} pager={pager} empty="No deliveries yet." columns={DELIVERY_COLUMNS} rowKey={(d) => d.id} />;
}

/** DestinationPage edits one destination, tests or deletes it, and lists its deliveries. */
export function DestinationPage({ id }: { id: string }) {
  const destination = useDestination(id);
  const update = useUpdateDestination(id);
  const action = useDestinationAction();
  const [, navigate] = useLocation();
  const tested = action.data && "ok" in action.data ? action.data : null;
  return (
    <section>
      <p>
        <Link href="/destinations">← Destinations</Link>
      </p>
      <h1>Destination</h1>
      <ErrorNotice error={action.error} />
      <QueryState query={destination}>
        {(d) => (
          <>
            <div className="toolbar">
              <button type="button" aria-busy={action.isPending} onClick={() => action.mutate({ id, action: "test" })}>
                Send a test file
              </button>
              <ConfirmButton
                label="Delete destination"
                question={`Delete the destination ${d.name}? Its pending deliveries are dropped.`}
                confirmLabel="Delete"
                onConfirm={() => action.mutate({ id, action: "delete" }, { onSuccess: () => navigate("/destinations") })}
              />
            </div>
            {tested ? (
              <p role="status" className={tested.ok ? "notice" : "notice error"}>
                {tested.ok ? `Test file written: ${tested.location}` : `Test failed: ${tested.error}`}
              </p>
            ) : null}
            <DestinationForm key={d.updatedAt} initial={d} submitLabel="Save destination" pending={update.isPending} error={update.error} onSubmit={({ name, config }) => update.mutate({ name, config })} />
            {update.isSuccess ? <p role="status">Saved.</p> : null}
          </>
        )}
      </QueryState>
      <h2>Deliveries</h2>
      <Deliveries id={id} />
    </section>
  );
}
