// "/projects/{id}/cohorts": the project's cohorts by name, each with its kind and its last
// calculation in the environment being looked at.
import { useRoute } from "preact-iso";
import { listCohorts, type Cohort } from "../../api/cohorts-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { LinkButton } from "../../ui/button.tsx";
import { DataTable, type Column } from "../../ui/data-table.tsx";
import { CirclesIcon, PlusIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { CalculatedAt, CalculationBadge, calculationIn, calculationState, sizeText } from "./calculation.tsx";

export const canWrite = (project: ProjectDto) => project.role !== "viewer";

function CohortsContent({ project }: { project: ProjectDto }) {
  const { environment } = useRegion(project);
  const [cohorts, reload] = useResource(() => listCohorts(project.id), [project.id]);
  const newButton = canWrite(project) && <LinkButton href={paths.newCohort(project.id)} variant="primary"><PlusIcon />New cohort</LinkButton>;
  const columns: Column<Cohort>[] = [
    {
      label: "Name",
      cell: (cohort) => (
        <div class="cell-stack">
          <a href={paths.cohort(project.id, cohort.id)} class="cell-link">{cohort.name}</a>
          {cohort.description && <span class="cell-sub">{cohort.description}</span>}
        </div>
      ),
    },
    { label: "Kind", cell: (cohort) => (cohort.kind === "dynamic" ? "Dynamic" : "Static") },
    { label: "Size", numeric: true, cell: (cohort) => sizeText(calculationIn(cohort, environment)) },
    { label: "Last calculated", cell: (cohort) => <CalculatedAt calculation={calculationIn(cohort, environment)} timeZone={project.timezone} /> },
    {
      label: "Status",
      cell: (cohort) => {
        const calculation = calculationIn(cohort, environment);
        return (
          <div class="cell-stack">
            <CalculationBadge state={calculationState(cohort, calculation)} />
            {calculation?.error && <span class="cell-sub">{calculation.error}</span>}
          </div>
        );
      },
    },
  ];
  return (
    <div class="page people-page">
      <div class="page-head">
        <PageTitle title="Cohorts">Groups of persons, by what they did and who they are, or from a list. Sizes are those of {environment}.</PageTitle>
        {cohorts.status === "ready" && cohorts.data.length > 0 && newButton}
      </div>
      {cohorts.status === "loading" && <LoadingState label="Loading cohorts…" />}
      {cohorts.status === "failed" && <ErrorState title="Cohorts could not be loaded" error={cohorts.error} onRetry={reload} />}
      {cohorts.status === "ready" && (
        <DataTable
          caption="Cohorts"
          columns={columns}
          rows={cohorts.data}
          rowKey={(cohort) => cohort.id}
          empty={
            <EmptyState icon={<CirclesIcon size={20} />} title="No cohorts yet" action={newButton}>
              A cohort is a set of persons: those who did something in a time window, who have a property, who belong to a group, or a list you upload.
            </EmptyState>
          }
        />
      )}
    </div>
  );
}

export default function CohortsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <CohortsContent project={project} />}</ProjectScope>;
}
