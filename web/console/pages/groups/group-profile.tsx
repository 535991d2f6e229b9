// "/projects/{id}/groups/{typeIndex}?key=…": one group: its properties (masked like persons'),
// when it was first seen, and its members: the persons with an event linked to it in the
// environment, as a cohort preview with a group criterion counts them.
import { useRoute } from "preact-iso";
import { previewCohort } from "../../api/cohorts-api.ts";
import { getGroup, type Group } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useRegion, type RegionAccess } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { LinkButton } from "../../ui/button.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { PersonTable } from "../persons/person-table.tsx";
import { hasMasked, MaskedNote, PropertyTable, readsMasked, useRegionScopes } from "../persons/personal-data.tsx";

/** Members a group's page lists (the newest first). */
const membersShown = 100;

function Members({ project, region, group }: { project: ProjectDto; region: RegionAccess; group: Group }) {
  const definition = { type: "and" as const, values: [{ type: "group" as const, group_type_index: group.type_index, group_key: group.key }] };
  const [members, reload] = useResource(() => previewCohort(region.tokens, definition, membersShown), [region.tokens, group.type_index, group.key]);
  const masking = readsMasked(useRegionScopes(region.tokens));
  if (members.status === "loading") return <LoadingState label="Finding the group's members…" />;
  if (members.status === "failed") return <ErrorState title="Members could not be found" error={members.error} onRetry={reload} />;
  const { size, sample } = members.data;
  return (
    <>
      <p class="muted-text" aria-live="polite">
        {size === 0 ? `No person has an event linked to this ${group.type} in ${region.environment}.`
          : `${formatNumber(size)} ${size === 1 ? "person has" : "persons have"} events linked to this ${group.type} in ${region.environment}${size > sample.length ? `; the newest ${sample.length} are listed` : ""}.`}
      </p>
      {sample.length > 0 && <PersonTable project={project} persons={sample} masking={masking} caption={`Members of ${group.key}`} />}
    </>
  );
}

function GroupContent({ project, typeIndex, groupKey }: { project: ProjectDto; typeIndex: number; groupKey: string }) {
  const region = useRegion(project);
  const masking = readsMasked(useRegionScopes(region.tokens));
  const [group, reload] = useResource(() => getGroup(region.tokens, typeIndex, groupKey), [region.tokens, typeIndex, groupKey]);
  const back = <a href={paths.groups(project.id, typeIndex)} class="back-link">← Groups</a>;
  if (group.status === "loading") return <LoadingState label="Loading the group…" />;
  if (group.status === "failed") return <ErrorState title="The group could not be loaded" error={group.error} onRetry={reload} />;
  if (group.data === null) {
    return (
      <EmptyState icon={<SearchOffIcon size={20} />} title="Group not found" action={<LinkButton href={paths.groups(project.id, typeIndex)} variant="primary">Go to groups</LinkButton>}>
        No group of this project has this type and key.
      </EmptyState>
    );
  }
  const found = group.data;
  return (
    <div class="page people-page">
      <div>
        {back}
        <PageTitle title={found.key}>
          {found.type} · first seen <time dateTime={found.created_at}>{formatDateTime(found.created_at, project.timezone)}</time>
        </PageTitle>
      </div>
      <section class="card section" aria-labelledby="group-properties-title">
        <h2 id="group-properties-title" class="section-title">Properties</h2>
        {hasMasked(found.properties, masking) && <MaskedNote project={project} />}
        <PropertyTable properties={found.properties} masking={masking} caption="Group properties" empty="No properties yet: they come from $groupidentify events." />
      </section>
      <section class="card section" aria-labelledby="group-members-title">
        <h2 id="group-members-title" class="section-title">Members</h2>
        <Members project={project} region={region} group={found} />
      </section>
    </div>
  );
}

export default function GroupProfilePage() {
  const { params, query } = useRoute();
  const typeIndex = Number(params.typeIndex);
  return (
    <ProjectScope projectId={params.projectId!}>
      {(project) =>
        !/^[0-4]$/.test(params.typeIndex ?? "") || !query.key ? (
          <EmptyState icon={<SearchOffIcon size={20} />} title="Group not found" action={<LinkButton href={paths.groups(project.id)} variant="primary">Go to groups</LinkButton>}>
            This address names no group.
          </EmptyState>
        ) : (
          <GroupContent project={project} typeIndex={typeIndex} groupKey={query.key} />
        )}
    </ProjectScope>
  );
}
