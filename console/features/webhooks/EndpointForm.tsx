/** EndpointForm: an endpoint's address, description, event types and whether it is enabled (create and edit). */
import { useState } from "react";
import type { CreateWebhookEndpointBody, WebhookEndpoint } from "../../../src/modules/webhook-endpoints/model";
import { ErrorNotice, fieldError } from "../../components/ErrorNotice";

type EventType = WebhookEndpoint["eventTypes"][number];
// A record over the event type union (spec 6.2): the type checker tells when one is added.
const EVENT_SET: Record<EventType, true> = { "render.succeeded": true, "render.failed": true, "render.cancelled": true };
const EVENT_TYPES = Object.keys(EVENT_SET) as EventType[];

interface Props {
  initial?: WebhookEndpoint;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (body: CreateWebhookEndpointBody) => void;
}

/** EndpointForm edits an endpoint's fields and submits them. */
export function EndpointForm({ initial, submitLabel, pending, error, onSubmit }: Props) {
  const [url, setUrl] = useState(initial?.url ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [events, setEvents] = useState<EventType[]>(initial?.eventTypes ?? [...EVENT_TYPES]);
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const urlError = fieldError(error, "/url");
  return (
    <form
      aria-label={submitLabel}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit({ url, description: description || null, eventTypes: events, enabled });
      }}
    >
      <label>
        Endpoint URL
        <input type="url" required value={url} placeholder="https://example.com/hooks/renderd" aria-invalid={urlError ? true : undefined} onChange={(e) => setUrl(e.currentTarget.value)} />
        {urlError ? <small>{urlError}</small> : null}
      </label>
      <label>
        Description
        <input value={description} maxLength={1000} onChange={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <fieldset>
        <legend>Event types</legend>
        {EVENT_TYPES.map((t) => (
          <label key={t}>
            <input type="checkbox" checked={events.includes(t)} onChange={() => setEvents(events.includes(t) ? events.filter((x) => x !== t) : [...events, t])} />
            {t}
          </label>
        ))}
      </fieldset>
      <label>
        <input type="checkbox" role="switch" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        Enabled
      </label>
      <ErrorNotice error={error} />
      <button type="submit" aria-busy={pending}>
        {submitLabel}
      </button>
    </form>
  );
}
