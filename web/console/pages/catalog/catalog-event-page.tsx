// One event of the tracking plan: what the data says of it (kind, volume, first and last seen),
// and its plan to edit: description, status (only the changes the plan allows), tags and
// properties. Saving sends one PATCH; what the control plane stores is shown back.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { getCatalogEvent, updateCatalogEvent, type CatalogEventDto, type CatalogStatus } from "../../api/catalog.ts";
import { isNotFound } from "../../api/http.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { statusChoices, statusLabels, StatusBadge } from "./catalog-statuses.tsx";
import { draftOf, inputOf, PropertyEditor, type PropertyDraft } from "./property-editor.tsx";
import { TagInput } from "./tag-input.tsx";
import { FactList, type Fact } from "../../ui/fact-list.tsx";

const descriptionLengthMax = 2000;

function EventFacts({ event, timeZone }: { event: CatalogEventDto; timeZone: string }) {
  const when = (at: string | null) => (at === null ? "not yet" : formatDateTime(at, timeZone));
  const facts: Fact[] = [
    ["Kind", event.kind],
    ["Volume (30 days)", event.volume_30d === null ? "not synced" : formatNumber(event.volume_30d)],
    ["First seen", when(event.first_seen_at)],
    ["Last seen", when(event.last_seen_at)],
    ["Version", String(event.version)],
    ["Updated", formatDateTime(event.updated_at, timeZone)],
  ];
  return (
    <FactList facts={facts} class="card catalog-facts" />
  );
}

function EventEditor({ project, initial }: { project: ProjectDto; initial: CatalogEventDto }) {
  const [event, setEvent] = useState(initial);
  const [description, setDescription] = useState(initial.description ?? "");
  const [status, setStatus] = useState<CatalogStatus>(initial.status);
  const [tags, setTags] = useState(initial.tags);
  const [drafts, setDrafts] = useState<PropertyDraft[]>(() => initial.properties.map(draftOf));
  const [saved, setSaved] = useState(false);
  const readOnly = project.role === "viewer";

  const form = useFormAction(async () => {
    setSaved(false);
    const stored = await updateCatalogEvent(project.id, event.id, {
      description: description === "" ? null : description,
      ...(status === event.status ? {} : { status }),
      tags,
      properties: drafts.map(inputOf),
    });
    setEvent(stored);
    setStatus(stored.status);
    setDrafts(stored.properties.map(draftOf));
    setSaved(true);
  });

  return (
    <div class="page">
      <PageTitle title={event.display_name ?? event.name}>
        <a href={paths.projectCatalog(project.id)}>Tracking plan</a> / <code>{event.name}</code> <StatusBadge status={event.status} />
      </PageTitle>
      <EventFacts event={event} timeZone={project.timezone} />
      <form class="card catalog-form" onSubmit={form.onSubmit} onInput={() => setSaved(false)}>
        <FormError error={form.error} />
        {saved && <Alert tone="success">Saved: version {event.version} of the plan of this event.</Alert>}
        <div class="field">
          <label for="catalog-description" class="field-label">Description</label>
          <textarea
            id="catalog-description"
            class="input textarea"
            rows={3}
            maxLength={descriptionLengthMax}
            readOnly={readOnly}
            value={description}
            placeholder="What the event means, and when the code sends it"
            onInput={(input) => setDescription(input.currentTarget.value)}
          />
        </div>
        <label class="field catalog-status-field">
          <span class="field-label">Status</span>
          <select class="input select" name="status" value={status} disabled={readOnly} onChange={(change) => setStatus(change.currentTarget.value as CatalogStatus)}>
            {statusChoices(event.status).map((choice) => <option key={choice} value={choice}>{statusLabels[choice]}</option>)}
          </select>
          <span class="field-hint">A planned event becomes implemented once it is sent, and verified once someone checked its data.</span>
        </label>
        <TagInput tags={tags} onChange={(next) => (setTags(next), setSaved(false))} disabled={readOnly} />
        <PropertyEditor drafts={drafts} onChange={(next) => (setDrafts(next), setSaved(false))} disabled={readOnly} />
        {!readOnly && (
          <div class="form-actions">
            <LinkButton href={paths.projectCatalog(project.id)}>Back to the plan</LinkButton>
            <Button type="submit" variant="primary" busy={form.busy}>Save changes</Button>
          </div>
        )}
      </form>
    </div>
  );
}

function CatalogEventContent({ project, eventId }: { project: ProjectDto; eventId: string }) {
  const [event, reload] = useResource(() => getCatalogEvent(project.id, eventId), [project.id, eventId]);
  if (event.status === "loading") return <LoadingState label="Loading the event…" />;
  if (event.status === "failed") {
    return isNotFound(event.error) ? (
      <EmptyState icon={<SearchOffIcon size={20} />} title="Event not found" action={<LinkButton href={paths.projectCatalog(project.id)} variant="primary">Back to the tracking plan</LinkButton>}>
        It may have been removed from the plan.
      </EmptyState>
    ) : (
      <ErrorState title="The event could not be loaded" error={event.error} onRetry={reload} />
    );
  }
  return <EventEditor key={event.data.id} project={project} initial={event.data} />;
}

export default function CatalogEventPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <CatalogEventContent project={project} eventId={params.eventId!} />}</ProjectScope>;
}
