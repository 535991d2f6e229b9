// "/": opens the project the person used last (of the organisation `?org=` names, if given),
// else the first project there is, else the page that creates one.
import { useLocation } from "preact-iso";
import { listProjects } from "../api/console-api.ts";
import type { MeResponse } from "../api/types.ts";
import { useResource } from "../hooks/use-resource.ts";
import { Redirect, RequireSignedIn } from "../layouts/guards.tsx";
import { paths } from "../paths.ts";
import { lastProjectId } from "../state/last-project.ts";
import { ErrorState, LoadingState } from "../ui/states.tsx";

async function destination(me: MeResponse, orgId: string | undefined): Promise<string> {
  const orgs = me.orgs.filter((org) => !orgId || org.id === orgId);
  const projects = (await Promise.all(orgs.map((org) => listProjects(org.id)))).flatMap((list) => list.projects);
  const last = lastProjectId();
  const chosen = projects.find((project) => project.id === last) ?? projects[0];
  return chosen ? paths.project(chosen.id) : paths.newProject(orgs[0]?.id);
}

function OpenProject({ me }: { me: MeResponse }) {
  const { query } = useLocation();
  const [target, reload] = useResource(() => destination(me, query.org), [me, query.org]);
  if (target.status === "ready") return <Redirect to={target.data} />;
  return (
    <main class="centered-page">
      {target.status === "loading" ? <LoadingState label="Opening your project…" /> : <ErrorState title="Your projects could not be loaded" error={target.error} onRetry={reload} />}
    </main>
  );
}

export default function HomePage() {
  return <RequireSignedIn>{(me) => <OpenProject me={me} />}</RequireSignedIn>;
}
