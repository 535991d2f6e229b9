// A person's distinct ids and identity history (merges, refused merges, unmerges), and
// unmerging: chosen distinct ids move to a new person, after a confirmation.
import { useState } from "preact/hooks";
import { describeError } from "../../api/errors.ts";
import { personIdentity, unmergePerson, type Identity, type IdentityEntry, type Person } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import type { RegionAccess } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";

/** Distinct ids one unmerge moves at most (unmergeDistinctIdsMax in the region). */
const unmergeIdsMax = 100;

const kindLabels: Record<IdentityEntry["kind"], string> = { merge: "Merged", refused: "Merge refused", unmerge: "Unmerged" };

function PersonLink({ project, id, self }: { project: ProjectDto; id: string; self: string }) {
  return id === self ? <span class="mono">this person</span> : <a href={paths.person(project.id, id)} class="mono">{id}</a>;
}

function History({ project, identity }: { project: ProjectDto; identity: Identity }) {
  if (identity.history.length === 0) return <p class="muted-text">No merges: this person has been one person since first seen.</p>;
  const self = identity.person_id;
  const describe = (entry: IdentityEntry) => {
    if (entry.kind === "merge") return <>Took in <PersonLink project={project} id={entry.absorbed_id} self={self} /> (its distinct ids, properties and events) into <PersonLink project={project} id={entry.survivor_id} self={self} /></>;
    if (entry.kind === "refused") return <>A join with <PersonLink project={project} id={entry.absorbed_id} self={self} /> was refused: both persons were identified</>;
    return <>Distinct ids moved from <PersonLink project={project} id={entry.survivor_id} self={self} /> to the new person <PersonLink project={project} id={entry.absorbed_id} self={self} /></>;
  };
  return (
    <div class="table-scroll">
      <table class="data-table">
        <caption class="visually-hidden">Identity history, oldest first</caption>
        <thead>
          <tr><th scope="col">What</th><th scope="col">When ({project.timezone})</th><th scope="col">Details</th></tr>
        </thead>
        <tbody>
          {identity.history.map((entry, index) => (
            <tr key={index} class="identity-entry">
              <td class="nowrap">{kindLabels[entry.kind]}</td>
              <td><time dateTime={entry.at}>{formatDateTime(entry.at, project.timezone)}</time></td>
              <td>{describe(entry)}{entry.event_uuid && <span class="cell-sub">event {entry.event_uuid}</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface IdentityProps {
  project: ProjectDto;
  region: RegionAccess;
  person: Person;
  canUnmerge: boolean;
  /** The person after an unmerge, and the new one. */
  onUnmerged(person: Person, newPerson: Person): void;
}

export function PersonIdentity({ project, region, person, canUnmerge, onUnmerged }: IdentityProps) {
  const [identity, reload] = useResource(() => personIdentity(region.tokens, person.id), [region.tokens, person.id, person.version, person.distinct_ids.join("\n")]);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<{ moved: string[]; newPerson: Person } | null>(null);

  const ids = person.distinct_ids;
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (!next.delete(id)) next.add(id);
    setChosen(next);
    setDone(null);
  };
  const problem = chosen.size === 0 ? null
    : chosen.size >= ids.length ? "At least one distinct id must stay with this person."
    : chosen.size > unmergeIdsMax ? `One unmerge moves at most ${unmergeIdsMax} distinct ids.`
    : null;

  const unmerge = async () => {
    setBusy(true);
    setError(null);
    const moved = ids.filter((id) => chosen.has(id));
    try {
      const answer = await unmergePerson(region.tokens, person.id, moved);
      setConfirming(false);
      setChosen(new Set());
      setDone({ moved, newPerson: answer.new_person });
      onUnmerged(answer.person, answer.new_person);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <section class="card section" aria-labelledby="distinct-ids-title">
        <div class="section-head">
          <h2 id="distinct-ids-title" class="section-title">Distinct ids</h2>
          {canUnmerge && ids.length > 1 && (
            <Button small variant="secondary" disabled={chosen.size === 0 || problem !== null} onClick={() => { setError(null); setConfirming(true); }}>
              Unmerge {chosen.size > 0 ? `${chosen.size} selected` : "selected"}
            </Button>
          )}
        </div>
        <p class="muted-text">
          Every id this person sent events under.{" "}
          {canUnmerge && ids.length > 1 ? "To undo a wrong merge, select the ids that belong to someone else and unmerge them into a new person." : !canUnmerge && ids.length > 1 ? "Unmerging needs the persons:write permission, which your role does not include." : ""}
        </p>
        <ul class="distinct-ids" aria-label="Distinct ids">
          {ids.map((id) => (
            <li key={id} class="distinct-id">
              {canUnmerge && ids.length > 1 ? (
                <label class="check">
                  <input type="checkbox" checked={chosen.has(id)} onChange={() => toggle(id)} />
                  <span class="mono distinct-id-text">{id}</span>
                </label>
              ) : (
                <span class="mono distinct-id-text">{id}</span>
              )}
            </li>
          ))}
        </ul>
        {problem && <p class="field-error" role="status">{problem}</p>}
        {done && (
          <Alert tone="success">
            Moved {done.moved.length === 1 ? "1 distinct id" : `${done.moved.length} distinct ids`} to a new person:{" "}
            <a href={paths.person(project.id, done.newPerson.id)}>{done.newPerson.distinct_ids.join(", ")}</a>.
          </Alert>
        )}
      </section>

      <section class="card section" aria-labelledby="merges-title">
        <h2 id="merges-title" class="section-title">Merges</h2>
        {identity.status === "loading" && <LoadingState label="Loading the identity history…" />}
        {identity.status === "failed" && <ErrorState title="The identity history could not be loaded" error={identity.error} onRetry={reload} />}
        {identity.status === "ready" && <History project={project} identity={identity.data} />}
      </section>

      <ConfirmDialog
        open={confirming}
        title="Unmerge into a new person?"
        confirmLabel="Unmerge"
        busy={busy}
        danger
        onConfirm={() => void unmerge()}
        onClose={() => setConfirming(false)}
      >
        <p>These distinct ids move to a new person:</p>
        <ul class="dialog-list">
          {ids.filter((id) => chosen.has(id)).map((id) => <li key={id} class="mono">{id}</li>)}
        </ul>
        <p class="muted-text">
          The new person starts without properties. Events sent with these ids from now on belong to it; a person merged in earlier whose ids all move takes its earlier events with it. This cannot be undone here (a later identify or alias may join them again).
        </p>
        {error !== null && <Alert tone="error">{describeError(error)}</Alert>}
      </ConfirmDialog>
    </>
  );
}
