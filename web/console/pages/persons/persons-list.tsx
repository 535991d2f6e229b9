// "/projects/{id}/persons": the project's persons, newest first, searched by distinct id or
// person id, or filtered by a property (and value), read a page at a time.
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { listPersons, type PersonSearch } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button, LinkButton } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { SearchOffIcon, UsersIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { PersonsNav } from "./persons-nav.tsx";
import { hasMasked, MaskedNote, readsMasked, useRegionScopes } from "./personal-data.tsx";
import { PersonTable } from "./person-table.tsx";

export const personsPageSize = 50;

const filterOf = (query: Record<string, string>): PersonSearch => ({
  search: query.search || undefined,
  property: query.property || undefined,
  value: query.property && query.value ? query.value : undefined,
});

function SearchForm({ project, filter }: { project: ProjectDto; filter: PersonSearch }) {
  const { route } = useLocation();
  const [open, setOpen] = useState(filter.property !== undefined);
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const params = new URLSearchParams();
    for (const name of ["search", "property", "value"]) {
      const value = String(fields.get(name) ?? "").trim();
      if (value) params.set(name, value);
    }
    const query = params.toString();
    route(query ? `${paths.persons(project.id)}?${query}` : paths.persons(project.id));
  };
  return (
    <form class="search-form" onSubmit={onSubmit} role="search" aria-label="Search persons">
      <div class="search-row">
        <TextField label="Distinct id or person id" name="search" type="search" defaultValue={filter.search ?? ""} placeholder="user-42, anon-…, or a person's id" maxLength={200} />
        {open && (
          <>
            <TextField label="Property" name="property" defaultValue={filter.property ?? ""} placeholder="plan" maxLength={200} />
            <TextField label="Equal to" name="value" defaultValue={filter.value ?? ""} placeholder="any value" hint="Leave empty for any value." />
          </>
        )}
        <div class="search-actions">
          <Button type="submit" variant="primary">Search</Button>
          {!open && <Button variant="ghost" onClick={() => setOpen(true)}>Filter by property</Button>}
          {(filter.search || filter.property) && <LinkButton href={paths.persons(project.id)} variant="ghost">Clear</LinkButton>}
        </div>
      </div>
    </form>
  );
}

function PersonsContent({ project }: { project: ProjectDto }) {
  const { query } = useLocation();
  const filter = filterOf(query);
  const region = useRegion(project);
  const masking = readsMasked(useRegionScopes(region.tokens));
  const controls = usePagedList((cursor) => listPersons(region.tokens, filter, cursor, personsPageSize), [region.tokens, filter.search, filter.property, filter.value]);
  const { list } = controls;
  const filtered = filter.search !== undefined || filter.property !== undefined;
  return (
    <div class="page people-page">
      <PageTitle title="Persons">Everyone who sent events to <span class="text-strong">{project.name}</span>, newest first. Events shown on a person are those of {region.environment}.</PageTitle>
      <PersonsNav project={project} current="persons" />
      <SearchForm key={`${filter.search}|${filter.property}|${filter.value}`} project={project} filter={filter} />
      {list.status === "loading" && <LoadingState label="Loading persons…" />}
      {list.status === "failed" && <ErrorState title="Persons could not be loaded" error={list.error} onRetry={controls.reload} />}
      {list.status === "ready" && list.items.length === 0 && !filtered && !list.more && (
        <EmptyState icon={<UsersIcon size={20} />} title="No persons yet" action={<LinkButton href={paths.projectSetup(project.id)} variant="primary">Get started</LinkButton>}>
          A person appears with the first event sent with their distinct id. Send one from your app or with curl.
        </EmptyState>
      )}
      {list.status === "ready" && list.items.length === 0 && filtered && !list.more && (
        <EmptyState icon={<SearchOffIcon size={20} />} title="No persons match">Try part of a distinct id, a whole person id, or another property.</EmptyState>
      )}
      {list.status === "ready" && list.items.length === 0 && list.more && (
        <EmptyState icon={<SearchOffIcon size={20} />} title="No matches yet">
          None of the persons searched so far match; a search reads the project a part at a time. Keep searching to look further.
        </EmptyState>
      )}
      {list.status === "ready" && list.items.length > 0 && (
        <>
          {list.items.some((person) => hasMasked(person.properties, masking)) && <MaskedNote project={project} />}
          <PersonTable project={project} persons={list.items} masking={masking} caption="Persons" />
        </>
      )}
      <LoadMore controls={controls} label={list.status === "ready" && list.items.length === 0 ? "Keep searching" : "Load more"} />
    </div>
  );
}

export default function PersonsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <PersonsContent project={project} />}</ProjectScope>;
}
