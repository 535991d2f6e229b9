// "Destinations": where findings are sent (Slack through an incoming webhook, or any HTTPS
// endpoint as a signed webhook). Listed with what each sends and its secret's hint (never the
// secret); created, edited, deleted after confirming, and "Send test" makes one attempt now and
// shows what the receiver answered. Changes need alerts:write.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { describeError } from "../../api/errors.ts";
import { listDestinations, testDestination, type AttemptDto, type DestinationDto } from "../../api/findings-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatNumber } from "../../format/numbers.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { BellIcon, PlusIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, Loaded } from "../../ui/states.tsx";
import { useResource } from "../../hooks/use-resource.ts";
import { useAction } from "../settings/use-action.ts";
import { DeleteDestinationDialog, DestinationDialog } from "./destination-dialogs.tsx";
import { destinationKindLabels, secretNote } from "./destination-form.tsx";
import { severityLabels } from "./finding-format.ts";
import { FindingsNav } from "./findings-nav.tsx";
import { alertsWriteReason } from "./permissions.ts";

const blockedNoteId = "destinations-blocked";

/** What the receiver answered the test: OK with its status, or the status and error. */
function TestOutcome({ attempt }: { attempt: AttemptDto }) {
  const status = attempt.status === null ? "no answer" : `status ${attempt.status}`;
  const took = `${formatNumber(attempt.duration_ms)} ms`;
  return attempt.ok ? (
    <Alert tone="success">Test delivered: {status}, in {took}.</Alert>
  ) : (
    <Alert tone="error">Test failed: {status}{attempt.error ? `: ${attempt.error}` : ""} ({took}).</Alert>
  );
}

function DestinationCard({ project, destination, blocked, onEdit, onDelete }: { project: ProjectDto; destination: DestinationDto; blocked: string | null; onEdit(): void; onDelete(): void }) {
  const [outcome, setOutcome] = useState<AttemptDto | null>(null);
  const test = useAction(async () => {
    setOutcome(null);
    setOutcome(await testDestination(project.id, destination.id));
  });
  const writeProps = { disabled: blocked !== null, "aria-describedby": blocked ? blockedNoteId : undefined };
  const { to, channel } = destination.config;
  return (
    <li class="card destination-card" aria-label={`Destination ${destination.name}`}>
      <div class="destination-head">
        <h3 class="destination-name">{destination.name}</h3>
        <span class="badge">{destinationKindLabels[destination.kind]}</span>
        {destination.enabled ? <span class="badge badge-success">Enabled</span> : <span class="badge badge-warning">Disabled</span>}
      </div>
      <p class="destination-meta">
        {severityLabels[destination.min_severity]} and above · {secretNote(destination)}
        {channel !== null && <> · channel {channel}</>}
        {to.length > 0 && <> · to {to.join(", ")}</>}
      </p>
      <div class="key-actions">
        <Button small busy={test.busy} onClick={() => void test.run()} {...writeProps} aria-label={`Send a test to ${destination.name}`}>Send test</Button>
        <Button small onClick={onEdit} {...writeProps} aria-label={`Edit ${destination.name}`}>Edit</Button>
        <Button small variant="ghost" onClick={onDelete} {...writeProps} aria-label={`Delete ${destination.name}`}>Delete</Button>
      </div>
      <div class="destination-test" aria-live="polite">
        {test.error !== null && <Alert tone="error">The test could not be sent: {describeError(test.error)}</Alert>}
        {outcome !== null && <TestOutcome attempt={outcome} />}
      </div>
    </li>
  );
}

type Opened = { kind: "create" } | { kind: "edit" | "delete"; destination: DestinationDto } | null;

function DestinationsView({ project, initial }: { project: ProjectDto; initial: DestinationDto[] }) {
  const [destinations, setDestinations] = useState(initial);
  const [opened, setOpened] = useState<Opened>(null);
  const blocked = alertsWriteReason(project.role, "create, change, test or delete destinations");
  const close = () => setOpened(null);
  const upsert = (saved: DestinationDto) => {
    setDestinations((current) => [...current.filter((item) => item.id !== saved.id), saved].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)));
    close();
  };
  return (
    <>
      <div class="section-toolbar">
        <Button variant="primary" small onClick={() => setOpened({ kind: "create" })} disabled={blocked !== null} aria-describedby={blocked ? blockedNoteId : undefined}>
          <PlusIcon /> New destination
        </Button>
      </div>
      {blocked && <p id={blockedNoteId} class="findings-note">{blocked}</p>}
      {destinations.length === 0 ? (
        <EmptyState icon={<BellIcon size={20} />} title="No destinations yet">
          Add a Slack channel or a webhook, then name it in a rule: its findings are sent there.
        </EmptyState>
      ) : (
        <ul class="destination-list">
          {destinations.map((destination) => (
            <DestinationCard
              key={destination.id}
              project={project}
              destination={destination}
              blocked={blocked}
              onEdit={() => setOpened({ kind: "edit", destination })}
              onDelete={() => setOpened({ kind: "delete", destination })}
            />
          ))}
        </ul>
      )}
      {opened?.kind === "create" && <DestinationDialog project={project} existing={null} onClose={close} onSaved={upsert} />}
      {opened?.kind === "edit" && <DestinationDialog project={project} existing={opened.destination} onClose={close} onSaved={upsert} />}
      {opened?.kind === "delete" && (
        <DeleteDestinationDialog
          project={project}
          destination={opened.destination}
          onClose={close}
          onDeleted={() => {
            const gone = opened.destination.id;
            setDestinations((current) => current.filter((item) => item.id !== gone));
            close();
          }}
        />
      )}
    </>
  );
}

function DestinationsContent({ project }: { project: ProjectDto }) {
  const [destinations, reload] = useResource(() => listDestinations(project.id), [project.id]);
  return (
    <div class="page findings-page">
      <PageTitle title="Destinations">Where findings are sent: a Slack channel, or your own endpoint as a signed webhook.</PageTitle>
      <FindingsNav project={project} current="destinations" />
      <Loaded resource={destinations} what="the destinations" onRetry={reload}>
        {(data) => <DestinationsView project={project} initial={data.destinations} />}
      </Loaded>
    </div>
  );
}

export default function FindingDestinationsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <DestinationsContent project={project} />}</ProjectScope>;
}
