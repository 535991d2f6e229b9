// "/projects/{id}/persons/{personId}": one person: properties (masked where the role does not
// see personal data), distinct ids, merges with unmerge, their recordings, their events in
// the environment, and erasing them (admins and owners).
import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { isNotFound } from "../../api/http.ts";
import { getPerson, type Person } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { LinkButton } from "../../ui/button.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { PersonRecordings } from "../replays/person-recordings.tsx";
import { ErasePersonSection } from "../erasure/erase-person-section.tsx";
import { EventTimeline } from "./event-timeline.tsx";
import { PersonIdentity } from "./person-identity.tsx";
import { personName } from "./person-name.ts";
import { hasMasked, MaskedNote, PropertyTable, readsMasked, useRegionScopes } from "./personal-data.tsx";

function Profile({ project, initial }: { project: ProjectDto; initial: Person }) {
  const region = useRegion(project);
  const scopes = useRegionScopes(region.tokens);
  const masking = readsMasked(scopes);
  const [person, setPerson] = useState(initial);
  /** Raised by an unmerge: the events may have moved, so the timeline reads them again. */
  const [changes, setChanges] = useState(0);
  /** Set once an erasure of this person completes: what the page showed is gone. */
  const [erased, setErased] = useState(false);
  useEffect(() => setPerson(initial), [initial]);
  const name = personName(person);
  return (
    <div class="page people-page">
      <div>
        <a href={paths.persons(project.id)} class="back-link">← Persons</a>
        {erased ? (
          <PageTitle title="Erased person">
            <span class="mono">{person.id}</span>
          </PageTitle>
        ) : (
          <PageTitle title={name}>
            <span class="mono">{person.id}</span> · {person.is_identified ? "Identified" : "Anonymous"} · first seen{" "}
            <time dateTime={person.created_at}>{formatDateTime(person.created_at, project.timezone)}</time>
          </PageTitle>
        )}
      </div>

      {erased ? (
        <p class="muted-text">This person's properties, distinct ids, merges, recordings and events are erased.</p>
      ) : (
        <>
          <section class="card section" aria-labelledby="properties-title">
            <h2 id="properties-title" class="section-title">Properties</h2>
            {hasMasked(person.properties, masking) && <MaskedNote project={project} />}
            <PropertyTable properties={person.properties} masking={masking} caption="Person properties" empty="No properties yet: they come from $set and $set_once on events." />
          </section>

          <PersonIdentity
            project={project}
            region={region}
            person={person}
            canUnmerge={scopes?.has("persons:write") ?? false}
            onUnmerged={(after) => {
              setPerson(after);
              setChanges((count) => count + 1);
            }}
          />

          <PersonRecordings key={`recordings-${changes}`} project={project} region={region} personId={person.id} />

          <section class="card section" aria-labelledby="events-title">
            <h2 id="events-title" class="section-title">Events</h2>
            <EventTimeline key={changes} project={project} region={region} personId={person.id} masking={masking} />
          </section>
        </>
      )}

      <ErasePersonSection project={project} environment={region.environment} person={person} name={name} onErased={() => setErased(true)} />
    </div>
  );
}

function ProfileContent({ project, personId }: { project: ProjectDto; personId: string }) {
  const region = useRegion(project);
  const { route } = useLocation();
  const [person, reload] = useResource(() => getPerson(region.tokens, personId), [region.tokens, personId]);
  // A merged-away person's id answers as the person it merged into: show that person's own address.
  useEffect(() => {
    if (person.status === "ready" && person.data.id !== personId) route(paths.person(project.id, person.data.id), true);
  }, [person]);
  if (person.status === "loading") return <LoadingState label="Loading the person…" />;
  if (person.status === "failed") {
    return isNotFound(person.error) ? (
      <EmptyState icon={<SearchOffIcon size={20} />} title="Person not found" action={<LinkButton href={paths.persons(project.id)} variant="primary">Go to persons</LinkButton>}>
        No person of this project has this id.
      </EmptyState>
    ) : (
      <ErrorState title="The person could not be loaded" error={person.error} onRetry={reload} />
    );
  }
  return <Profile key={person.data.id} project={project} initial={person.data} />;
}

export default function PersonProfilePage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <ProfileContent project={project} personId={params.personId!} />}</ProjectScope>;
}
