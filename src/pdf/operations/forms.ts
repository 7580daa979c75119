/** operations/forms: an AcroForm's fields listed, filled by name (pdf-lib, which draws each filled field's appearance),
 * and `flatten` — forms and annotations drawn into the page content by qpdf. */
import { PDFCheckBox, PDFDropdown, PDFOptionList, PDFRadioGroup, PDFSignature, PDFTextField, type PDFDocument, type PDFField } from "pdf-lib";
import { runTool } from "../tool";
import { OperationError, type OpenedPdf } from "./open";

export const FORM_FIELD_TYPES = ["text", "checkbox", "radio", "dropdown", "list", "signature", "button"] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

/** FormField is a field as GET /v1/assets/{id}/form-fields lists it. */
export interface FormField {
  name: string;
  type: FormFieldType;
  /** Its value now: text, checked, the chosen option(s). */
  value?: string | boolean | string[];
  /** The options of a radio group, dropdown or list box. */
  options?: string[];
}

function typeOf(field: PDFField): FormFieldType {
  if (field instanceof PDFTextField) return "text";
  if (field instanceof PDFCheckBox) return "checkbox";
  if (field instanceof PDFRadioGroup) return "radio";
  if (field instanceof PDFDropdown) return "dropdown";
  if (field instanceof PDFOptionList) return "list";
  if (field instanceof PDFSignature) return "signature";
  return "button";
}

/** listFormFields answers the document's form fields in the form's order (none for a PDF without a form). */
export function listFormFields(doc: PDFDocument): FormField[] {
  return doc
    .getForm()
    .getFields()
    .map((field) => {
      const listed: FormField = { name: field.getName(), type: typeOf(field) };
      if (field instanceof PDFTextField) listed.value = field.getText() ?? "";
      else if (field instanceof PDFCheckBox) listed.value = field.isChecked();
      else if (field instanceof PDFRadioGroup) Object.assign(listed, { value: field.getSelected() ?? "", options: field.getOptions() });
      else if (field instanceof PDFDropdown || field instanceof PDFOptionList) Object.assign(listed, { value: field.getSelected(), options: field.getOptions() });
      return listed;
    });
}

/** pointerOf escapes a field name as one JSON pointer token (RFC 6901: ~ and /). */
function pointerOf(name: string): string {
  return `/fields/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** fillForm sets each named field to its value; a name the form lacks, or a value of the wrong kind for its field,
 * throws an OperationError at /fields/<name>. The fields stay fillable (flatten makes them page content). */
export function fillForm(input: OpenedPdf, values: Record<string, string | boolean | string[]>): PDFDocument {
  const form = input.doc.getForm();
  const known = new Map(form.getFields().map((f) => [f.getName(), f]));
  for (const [name, value] of Object.entries(values)) {
    const at = pointerOf(name);
    const field = known.get(name);
    if (!field) throw new OperationError(at, `the form has no field named ${JSON.stringify(name)} (GET /v1/assets/{id}/form-fields lists them)`);
    const wrong = (wanted: string) => new OperationError(at, `${name} is a ${typeOf(field)} field: its value must be ${wanted}`);
    const option = (options: string[], chosen: string) => {
      if (!options.includes(chosen)) throw new OperationError(at, `${JSON.stringify(chosen)} is not an option of ${name} (${options.map((o) => JSON.stringify(o)).join(", ")})`);
    };
    if (field instanceof PDFTextField) {
      if (typeof value !== "string") throw wrong("text");
      const max = field.getMaxLength();
      if (max !== undefined && value.length > max) throw new OperationError(at, `${name} takes at most ${max} characters`);
      field.setText(value);
    } else if (field instanceof PDFCheckBox) {
      if (typeof value !== "boolean") throw wrong("true or false");
      if (value) field.check();
      else field.uncheck();
    } else if (field instanceof PDFRadioGroup) {
      if (typeof value !== "string") throw wrong("one of its options");
      option(field.getOptions(), value);
      field.select(value);
    } else if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
      const chosen = typeof value === "string" ? [value] : Array.isArray(value) ? value : null;
      if (!chosen) throw wrong("one of its options, or a list of them");
      chosen.forEach((c) => option(field.getOptions(), c));
      field.select(chosen);
    } else throw new OperationError(at, `${name} is a ${typeOf(field)} field, which cannot be filled`);
  }
  try {
    form.updateFieldAppearances();
  } catch {
    throw new OperationError("/fields", "the filled values cannot be drawn in the form's fonts (Helvetica draws Latin-1 only)");
  }
  return input.doc;
}

/** flattenPdf draws every form field and annotation into its page's content (qpdf: appearances made where missing,
 * then flattened), so that nothing is left to fill or edit; the form itself goes. */
export async function flattenPdf(input: OpenedPdf): Promise<Uint8Array> {
  const run = await runTool("qpdf", { args: ["--generate-appearances", "--flatten-annotations=all", "--remove-restrictions", "{in.pdf}", "-"], files: { "in.pdf": input.bytes } });
  return run.stdout;
}
