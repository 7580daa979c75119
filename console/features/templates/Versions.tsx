/** Versions: a template's published versions, newest first. */
import { formatDate } from "../../components/format";
import { QueryState } from "../../components/QueryState";
import { useVersions } from "./api";

/** Versions lists the versions of a template. */
export function Versions({ id }: { id: string }) {
  const versions = useVersions(id);
  return (
    <section>
      <h2>Versions</h2>
      <QueryState query={versions} isEmpty={(p) => p.items.length === 0} empty="Not published yet: renders can use the draft only as test renders.">
        {(page) => (
          <ul>
            {page.items.map((v) => (
              <li key={v.id}>
                Version {v.version}, published {formatDate(v.publishedAt)}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </section>
  );
}
