/** DestinationForm: a destination's name, type and config (create and edit); the config is JSON, credentials masked. */
import { useState } from "react";
import type { CreateDestinationBody, Destination } from "../../../src/modules/destinations/model";
import { ErrorNotice } from "../../components/ErrorNotice";

type DestinationType = Destination["type"];

// A record over the type union: the type checker tells when one is added. Each starts from a config to fill in.
const STARTERS: Record<DestinationType, Record<string, unknown>> = {
  s3: { bucket: "", region: "", accessKeyId: "", secretAccessKey: "", prefix: "" },
  sftp: { host: "", port: 22, username: "", privateKey: "", hostKeySha256: "SHA256:", directory: "" },
  email: { smtpHost: "", smtpPort: 465, secure: true, username: "", password: "", from: "", to: [""], subject: "{{metadata.subject}}" },
  http: { url: "https://", method: "PUT", headers: {} },
};
const TYPES = Object.keys(STARTERS) as DestinationType[];

interface Props {
  initial?: Destination;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (body: CreateDestinationBody) => void;
}

/** DestinationForm edits a destination and submits it; a config that is not JSON is refused before it is sent, and the
 * server's problems (pointers under /config) are listed by ErrorNotice. */
export function DestinationForm({ initial, submitLabel, pending, error, onSubmit }: Props) {
  const [name, setName] = useState(initial?.name ?? "");
  const [type, setType] = useState<DestinationType>(initial?.type ?? "s3");
  const [config, setConfig] = useState(JSON.stringify(initial?.config ?? STARTERS.s3, null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  return (
    <form
      aria-label={submitLabel}
      onSubmit={(e) => {
        e.preventDefault();
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(config) as Record<string, unknown>;
        } catch (err) {
          setParseError(`The config is not JSON: ${(err as Error).message}`);
          return;
        }
        setParseError(null);
        onSubmit({ name, type, config: parsed });
      }}
    >
      <label>
        Name
        <input required maxLength={200} value={name} onChange={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Type
        <select
          value={type}
          disabled={initial !== undefined}
          onChange={(e) => {
            const next = e.currentTarget.value as DestinationType;
            setType(next);
            setConfig(JSON.stringify(STARTERS[next], null, 2));
          }}
        >
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label>
        Config (JSON; credentials show as ******** and are kept unless replaced)
        <textarea rows={10} spellCheck={false} value={config} aria-invalid={parseError ? true : undefined} onChange={(e) => setConfig(e.currentTarget.value)} />
        {parseError ? <small>{parseError}</small> : null}
      </label>
      <ErrorNotice error={error} />
      <button type="submit" aria-busy={pending}>
        {submitLabel}
      </button>
    </form>
  );
}
