/** PdfOperations: the operations on an uploaded PDF (issue 30; docs/pdf.md "Operations on PDFs") — one form whose options
 * follow the chosen operation (a fill form lists the PDF's own fields), then the operation followed until it ends, with
 * its result's download links and the server's own error at the field it names. */
import { useState } from "react";
import type { Asset } from "../../../src/modules/assets/model";
import type { PdfOperationRequest } from "../../../src/modules/pdf-operations/model";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatBytes } from "../../components/format";
import { useCreateOperation, useFormFields, useOperation } from "./api";

type Operation = PdfOperationRequest["operation"];
type Fields = Record<string, string | boolean | string[]>;

const OPERATIONS: Record<Operation, string> = {
  rotate: "Rotate pages",
  split: "Split into ranges",
  merge: "Merge with another PDF",
  stamp: "Stamp text",
  watermark: "Watermark text",
  fill: "Fill the form",
  flatten: "Flatten forms and annotations",
  compress: "Compress",
  metadata: "Set title and author",
  encrypt: "Encrypt with a password",
  sign: "Sign with a certificate",
};

const list = (text: string) => text.split(",").map((s) => s.trim()).filter(Boolean);
const relative = (address: string) => new URL(address).pathname + new URL(address).search;

/** request builds the operation's body from the form's values. */
function request(operation: Operation, asset: Asset, v: Record<string, string>, fields: Fields): PdfOperationRequest {
  const inputs = operation === "merge" ? [{ assetId: asset.id }, { assetId: v.other ?? "" }] : [{ assetId: asset.id }];
  const pages = v.pages ? { pages: list(v.pages).map(Number) } : {};
  switch (operation) {
    case "rotate":
      return { operation, inputs, angle: Number(v.angle ?? 90) as 90, ...pages };
    case "split":
      return { operation, inputs, ranges: list(v.ranges ?? "") };
    case "stamp":
    case "watermark":
      return { operation, inputs, text: v.text ?? "", ...pages };
    case "fill":
      return { operation, inputs, fields };
    case "compress":
      return { operation, inputs, ...(v.dpi ? { dpi: Number(v.dpi) } : {}) };
    case "metadata":
      return { operation, inputs, metadata: { ...(v.title ? { title: v.title } : {}), ...(v.author ? { author: v.author } : {}) } };
    case "encrypt":
      return { operation, inputs, password: { owner: v.owner ?? "", ...(v.user ? { user: v.user } : {}) } };
    case "sign":
      return { operation, inputs, signature: { certificateId: v.certificateId ?? "" } };
    default:
      return { operation, inputs };
  }
}

/** The text inputs each operation shows: [name, label]. */
const INPUTS: Partial<Record<Operation, [string, string][]>> = {
  rotate: [["angle", "Angle (90, 180 or 270)"], ["pages", "Pages (e.g. 1, 3; all when empty)"]],
  split: [["ranges", "Ranges (e.g. 1-2, 3, 4-)"]],
  merge: [["other", "Asset id of the PDF to append"]],
  stamp: [["text", "Text"], ["pages", "Pages (all when empty)"]],
  watermark: [["text", "Text"], ["pages", "Pages (all when empty)"]],
  compress: [["dpi", "Images at most (dpi, default 150)"]],
  metadata: [["title", "Title"], ["author", "Author"]],
  encrypt: [["user", "Password to open (optional)"], ["owner", "Owner password"]],
  sign: [["certificateId", "Certificate id"]],
};

function FillFields({ asset, fields, setFields }: { asset: Asset; fields: Fields; setFields(f: Fields): void }) {
  const listed = useFormFields(asset.id);
  if (listed.isPending) return <p aria-busy="true">Reading the form…</p>;
  if (listed.isError) return <ErrorNotice error={listed.error} />;
  if (listed.data.items.length === 0) return <p className="empty">This PDF has no form fields.</p>;
  return (
    <>
      {listed.data.items.map((f) =>
        f.type === "checkbox" ? (
          <label key={f.name}>
            <input type="checkbox" checked={fields[f.name] === true} onChange={(e) => setFields({ ...fields, [f.name]: e.currentTarget.checked })} /> {f.name}
          </label>
        ) : f.options ? (
          <label key={f.name}>
            {f.name}
            <select value={String(fields[f.name] ?? "")} onChange={(e) => setFields({ ...fields, [f.name]: e.currentTarget.value })}>
              <option value="">—</option>
              {f.options.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
          </label>
        ) : f.type === "text" ? (
          <label key={f.name}>
            {f.name}
            <input value={String(fields[f.name] ?? "")} onChange={(e) => setFields({ ...fields, [f.name]: e.currentTarget.value })} />
          </label>
        ) : null,
      )}
    </>
  );
}

function Result({ id }: { id: string }) {
  const op = useOperation(id);
  if (!op.data) return <ErrorNotice error={op.error} />;
  const { status, result, error } = op.data;
  return (
    <div role="status" aria-label="Operation status">
      <p>
        <code>{id}</code> <span className={`status ${status}`}>{status}</span>
      </p>
      {error ? (
        <div className="notice error" role="alert">
          <p>
            {error.path ? <code>{error.path}</code> : null} {error.message}
          </p>
        </div>
      ) : null}
      {result ? (
        <p>
          {(result.outputs ?? [result]).map((o, i) => (
            <a key={i} href={relative(o.downloadUrl)} role="button" className="secondary" download>
              Download {result.outputs ? `part ${i + 1}` : "result"} ({o.pages} page(s), {formatBytes(o.bytes)})
            </a>
          ))}
          {result.bytesBefore !== undefined ? <small> {formatBytes(result.bytesBefore)} before, {formatBytes(result.bytesAfter ?? 0)} after.</small> : null}
        </p>
      ) : null}
    </div>
  );
}

/** PdfOperations offers the operations on one uploaded PDF asset. */
export function PdfOperations({ asset }: { asset: Asset }) {
  const [operation, setOperation] = useState<Operation>("rotate");
  const [values, setValues] = useState<Record<string, string>>({});
  const [fields, setFields] = useState<Fields>({});
  const create = useCreateOperation();
  return (
    <form aria-label="PDF operation" onSubmit={(e) => (e.preventDefault(), create.mutate(request(operation, asset, values, fields)))}>
      <h2>Operations on {asset.filename}</h2>
      <label>
        Operation
        <select aria-label="Operation" value={operation} onChange={(e) => (setOperation(e.currentTarget.value as Operation), create.reset())}>
          {Object.entries(OPERATIONS).map(([name, label]) => (
            <option key={name} value={name}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {(INPUTS[operation] ?? []).map(([name, label]) => (
        <label key={`${operation}-${name}`}>
          {label}
          <input value={values[name] ?? ""} type={name === "owner" || name === "user" ? "password" : "text"} onChange={(e) => setValues({ ...values, [name]: e.currentTarget.value })} />
        </label>
      ))}
      {operation === "fill" ? <FillFields asset={asset} fields={fields} setFields={setFields} /> : null}
      <button type="submit" aria-busy={create.isPending}>
        Run {operation}
      </button>
      <ErrorNotice error={create.error} />
      {create.data ? <Result id={create.data.id} /> : null}
    </form>
  );
}
