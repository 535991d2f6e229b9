// A project's pages: signed in, the project loaded (and remembered as the one to open next
// time), inside the sidebar layout.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { getProject } from "../api/console-api.ts";
import { isNotFound } from "../api/http.ts";
import type { MeResponse, ProjectDto } from "../api/types.ts";
import { useResource } from "../hooks/use-resource.ts";
import { paths } from "../paths.ts";
import { rememberProject } from "../state/last-project.ts";
import { LinkButton } from "../ui/button.tsx";
import { SearchOffIcon } from "../ui/icons.tsx";
import { EmptyState, ErrorState, LoadingState } from "../ui/states.tsx";
import { AppLayout } from "./app-layout.tsx";
import { RequireSignedIn } from "./guards.tsx";

/** `replaceProject` shows a project the page changed (a rename) everywhere, the sidebar included, without loading it again. */
type ProjectChildren = (project: ProjectDto, me: MeResponse, replaceProject: (project: ProjectDto) => void) => ComponentChildren;

function LoadedProject({ me, projectId, children }: { me: MeResponse; projectId: string; children: ProjectChildren }) {
  const [project, reload] = useResource(() => getProject(projectId), [projectId]);
  const [changed, setChanged] = useState<ProjectDto | null>(null);
  useEffect(() => {
    if (project.status === "ready") rememberProject(project.data.id);
  }, [project]);
  if (project.status === "loading") {
    return (
      <main class="centered-page">
        <LoadingState label="Loading the project…" />
      </main>
    );
  }
  if (project.status === "failed") {
    return (
      <main class="centered-page">
        {isNotFound(project.error) ? (
          <EmptyState icon={<SearchOffIcon size={20} />} title="Project not found" action={<LinkButton href={paths.home} variant="primary">Go to your projects</LinkButton>}>
            It may have been deleted, or you are not a member of its organisation.
          </EmptyState>
        ) : (
          <ErrorState title="The project could not be loaded" error={project.error} onRetry={reload} />
        )}
      </main>
    );
  }
  const shown = changed?.id === project.data.id ? changed : project.data;
  return (
    <AppLayout me={me} project={shown}>
      {children(shown, me, setChanged)}
    </AppLayout>
  );
}

export function ProjectScope({ projectId, children }: { projectId: string; children: ProjectChildren }) {
  return <RequireSignedIn>{(me) => <LoadedProject me={me} projectId={projectId}>{children}</LoadedProject>}</RequireSignedIn>;
}
