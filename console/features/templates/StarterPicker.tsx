/** StarterPicker: the choice of what a new template begins from — each of the API's starters shown as a thumbnail of
 * its PDF (GET /v1/template-starters/{id}/pdf: the starter printed with its sample data), or a blank page. */
import type { StarterId, TemplateStarter } from "../../../src/modules/templates/model";
import { useStarterPdf } from "./api";
import { PdfPages } from "./pdf/PdfPages";

/** Choice is a starter's id, or "blank" for an empty template. */
export type Choice = StarterId | "blank";

function Thumbnail({ starter }: { starter: TemplateStarter }) {
  const pdf = useStarterPdf(starter.id);
  return (
    <div className="thumbnail" aria-busy={pdf.isPending}>
      <PdfPages pdf={pdf.data} maxPages={1} pageLabel={() => `The ${starter.name} starter's first page`} />
    </div>
  );
}

interface Props {
  starters: TemplateStarter[];
  chosen: Choice;
  onChoose: (choice: Choice) => void;
}

/** StarterPicker offers the starters and a blank template as radio buttons. */
export function StarterPicker({ starters, chosen, onChoose }: Props) {
  return (
    <fieldset className="starters">
      <legend>Starter</legend>
      <div className="starter-cards">
        {starters.map((s) => (
          <label key={s.id} className={chosen === s.id ? "starter chosen" : "starter"} title={s.description}>
            <Thumbnail starter={s} />
            <span>
              <input type="radio" name="starter" value={s.id} checked={chosen === s.id} onChange={() => onChoose(s.id)} /> {s.name}
            </span>
          </label>
        ))}
        <label className={chosen === "blank" ? "starter chosen" : "starter"} title="An empty page: add every node yourself.">
          <div className="thumbnail blank" aria-hidden="true" />
          <span>
            <input type="radio" name="starter" value="blank" checked={chosen === "blank"} onChange={() => onChoose("blank")} /> Blank
          </span>
        </label>
      </div>
    </fieldset>
  );
}
