// "/projects/{id}/groups": the project's group types as tabs (in the order first seen), and
// each type's groups by key, searched by part of the key and read a page at a time.
import { useLocation, useRoute } from "preact-iso";
import { groupTypes, listGroups, type Group, type GroupType } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { useRegion, type RegionAccess } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button, LinkButton } from "../../ui/button.tsx";
import { DataTable, type Column } from "../../ui/data-table.tsx";
import { TextField } from "../../ui/field.tsx";
import { CirclesIcon, SearchOffIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { Tabs } from "../../ui/tabs.tsx";
import { PersonsNav } from "../persons/persons-nav.tsx";
import { hasMasked, MaskedNote, readsMasked, useRegionScopes } from "../persons/personal-data.tsx";
import { FirstSeen, PropertyChips } from "../persons/person-table.tsx";

export const groupsPageSize = 50;

function GroupsOfType({ project, region, type, search }: { project: ProjectDto; region: RegionAccess; type: GroupType; search: string | undefined }) {
  const { route } = useLocation();
  const masking = readsMasked(useRegionScopes(region.tokens));
  const controls = usePagedList((cursor) => listGroups(region.tokens, type.index, search, cursor, groupsPageSize), [region.tokens, type.index, search]);
  const { list } = controls;
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    route(paths.groups(project.id, type.index, String(new FormData(event.currentTarget as HTMLFormElement).get("search") ?? "").trim()));
  };
  const columns: Column<Group>[] = [
    { label: "Key", cell: (group) => <a href={paths.group(project.id, group.type_index, group.key)} class="cell-link">{group.key}</a> },
    {
      label: "Properties",
      cell: (group) => (
        <PropertyChips properties={group.properties} masking={masking} />
      ),
    },
    { label: "First seen", cell: (group) => <FirstSeen iso={group.created_at} timeZone={project.timezone} /> },
  ];
  return (
    <>
      <form class="search-form" role="search" aria-label={`Search ${type.name} groups`} onSubmit={onSubmit} key={`${type.index}|${search}`}>
        <div class="search-row">
          <TextField label={`Key of a ${type.name}`} name="search" type="search" defaultValue={search ?? ""} placeholder="part of the key" maxLength={200} />
          <div class="search-actions">
            <Button type="submit" variant="primary">Search</Button>
            {search && <LinkButton href={paths.groups(project.id, type.index)} variant="ghost">Clear</LinkButton>}
          </div>
        </div>
      </form>
      {list.status === "loading" && <LoadingState label={`Loading ${type.name} groups…`} />}
      {list.status === "failed" && <ErrorState title="Groups could not be loaded" error={list.error} onRetry={controls.reload} />}
      {list.status === "ready" && list.items.length === 0 && (
        <EmptyState icon={<SearchOffIcon size={20} />} title={list.more ? "No matches yet" : search ? "No groups match" : `No ${type.name} groups`}>
          {list.more ? "None of the groups searched so far match; keep searching to look further." : search ? "Try another part of the key." : null}
        </EmptyState>
      )}
      {list.status === "ready" && list.items.length > 0 && (
        <>
          {list.items.some((group) => hasMasked(group.properties, masking)) && <MaskedNote project={project} />}
          <DataTable caption={`${type.name} groups`} columns={columns} rows={list.items} rowKey={(group) => group.key} />
        </>
      )}
      <LoadMore controls={controls} label={list.status === "ready" && list.items.length === 0 ? "Keep searching" : "Load more"} />
    </>
  );
}

function GroupsContent({ project }: { project: ProjectDto }) {
  const { query, route } = useLocation();
  const region = useRegion(project);
  const [types, reload] = useResource(() => groupTypes(region.tokens), [region.tokens]);
  return (
    <div class="page people-page">
      <PageTitle title="Groups">Companies, teams or any other kind of group events were sent for, by type.</PageTitle>
      <PersonsNav project={project} current="groups" />
      {types.status === "loading" && <LoadingState label="Loading group types…" />}
      {types.status === "failed" && <ErrorState title="Group types could not be loaded" error={types.error} onRetry={reload} />}
      {types.status === "ready" && types.data.results.length === 0 && (
        <EmptyState icon={<CirclesIcon size={20} />} title="No groups yet" action={<LinkButton href={paths.projectSetup(project.id)} variant="primary">Get started</LinkButton>}>
          Groups appear when events name them in their groups field, such as {"{\"company\": \"acme\"}"}.
        </EmptyState>
      )}
      {types.status === "ready" && types.data.results.length > 0 && (() => {
        const all = types.data.results;
        const selected = all.find((type) => String(type.index) === query.type) ?? all[0]!;
        return (
          <Tabs label="Group type" tabs={all.map((type) => ({ id: String(type.index), label: type.name }))} selected={String(selected.index)} onSelect={(id) => route(paths.groups(project.id, Number(id)), true)}>
            <GroupsOfType project={project} region={region} type={selected} search={query.search || undefined} />
          </Tabs>
        );
      })()}
    </div>
  );
}

export default function GroupsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <GroupsContent project={project} />}</ProjectScope>;
}
