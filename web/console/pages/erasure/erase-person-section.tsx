// "Erase this person" on a person's profile (admins and owners: scope persons.erase). The
// confirmation names the person, their distinct ids and what goes with them; once asked, the
// request's progress shows here and, when it completes, its certificate.
import { useEffect, useState } from "preact/hooks";
import { describeError } from "../../api/errors.ts";
import { erasePerson, type ErasureRequest } from "../../api/erasure-api.ts";
import type { Person } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { LockIcon } from "../../ui/icons.tsx";
import { adminOnlyReason } from "../settings/permissions.ts";
import { CertificateView } from "./certificate-view.tsx";
import { ErasureStatus } from "./erasure-status.tsx";
import { useErasureProgress } from "./use-erasure-progress.ts";

const sectionId = "erase-person";

function Progress({ project, started, onCompleted }: { project: ProjectDto; started: ErasureRequest; onCompleted(): void }) {
  const { request, error } = useErasureProgress(started);
  useEffect(() => {
    if (request.status === "completed") onCompleted();
  }, [request.status]);
  return (
    <div class="erasure-progress" aria-live="polite">
      <p>
        Erasure request <span class="mono">{request.id}</span>: <ErasureStatus request={request} />
      </p>
      {error !== null && <Alert tone="error">{describeError(error)}</Alert>}
      {request.status === "completed" && (
        <>
          <Alert tone="success">This person's data is erased. The certificate below proves it without naming them.</Alert>
          <CertificateView project={project} requestId={request.id} />
        </>
      )}
      <a href={`${paths.projectSettings(project.id)}#erasure-requests-title`}>All erasure requests of this project</a>
    </div>
  );
}

interface ErasePersonProps {
  project: ProjectDto;
  environment: string;
  person: Person;
  name: string;
  /** The erasure completed: the profile's data is gone from the region. */
  onErased(): void;
}

export function ErasePersonSection({ project, environment, person, name, onErased }: ErasePersonProps) {
  const blocked = adminOnlyReason(project.role, "erase a person's data");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [started, setStarted] = useState<ErasureRequest | null>(null);
  const erase = async () => {
    setBusy(true);
    setError(null);
    try {
      setStarted(await erasePerson(project.id, person.id, environment));
      setConfirming(false);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card section settings-danger" aria-labelledby={`${sectionId}-title`}>
      <div class="section-head">
        <h2 id={`${sectionId}-title`} class="section-title">Erase this person</h2>
        {!started && (
          <Button small variant="danger" disabled={blocked !== null} aria-describedby={blocked ? `${sectionId}-note` : undefined} onClick={() => { setError(null); setConfirming(true); }}>
            Erase this person
          </Button>
        )}
      </div>
      <p class="muted-text">
        Removes everything this person left in the project, in every environment and everywhere the region keeps it, and issues a signed certificate of the erasure (GDPR Art. 17).
      </p>
      {blocked && (
        <p class="role-note" id={`${sectionId}-note`}>
          <LockIcon />
          {blocked}
        </p>
      )}
      {started && <Progress project={project} started={started} onCompleted={onErased} />}
      <ConfirmDialog open={confirming} title={`Erase ${name}?`} confirmLabel="Erase permanently" busy={busy} danger onConfirm={() => void erase()} onClose={() => setConfirming(false)}>
        <p>
          Person <span class="mono">{person.id}</span> and every distinct id they sent events under:
        </p>
        <ul class="dialog-list" aria-label="Distinct ids to erase">
          {person.distinct_ids.map((id) => <li key={id} class="mono">{id}</li>)}
        </ul>
        <p>
          Erased from the region: their events in every environment (stored and not yet stored), their properties, distinct ids and merges, group links, cohort
          memberships, session recordings, ingestion-warning examples, live events and cached results.
        </p>
        <p class="muted-text">
          This cannot be undone. The certificate keeps only hashes of the ids, never the ids. Events sent later under one of these distinct ids make a new person.
        </p>
        {error !== null && <Alert tone="error">{describeError(error)}</Alert>}
      </ConfirmDialog>
    </section>
  );
}
