// A project's settings (/projects/{id}/settings): its name, environments, public keys, flag
// secret keys, revenue integrations, erasure requests, and deleting it. Each role sees everything; what it may not change is disabled,
// with the reason.
import { useRoute } from "preact-iso";
import type { ProjectDto } from "../../api/types.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { DeleteProjectSection } from "./delete-project-section.tsx";
import { ErasureRequestsSection } from "../erasure/erasure-requests-section.tsx";
import { FlagSecretKeysSection } from "./flag-secret-keys-section.tsx";
import { IntegrationsSection } from "./integrations-section.tsx";
import { EnvironmentsSection, GeneralSection } from "./general-section.tsx";
import { PublicKeysSection } from "./public-keys-section.tsx";

function ProjectSettings({ project, onChanged }: { project: ProjectDto; onChanged(project: ProjectDto): void }) {
  return (
    <div class="page page-narrow settings-page">
      <PageTitle title="Project settings">
        The <span class="text-strong">{project.name}</span> project's name, environments and keys. Your role here: {project.role}.
      </PageTitle>
      <GeneralSection project={project} onRenamed={onChanged} />
      <EnvironmentsSection project={project} />
      <PublicKeysSection project={project} />
      <FlagSecretKeysSection project={project} />
      <IntegrationsSection project={project} />
      <ErasureRequestsSection project={project} />
      <DeleteProjectSection project={project} />
    </div>
  );
}

export default function ProjectSettingsPage() {
  const { params } = useRoute();
  return (
    <ProjectScope projectId={params.projectId!}>
      {(project, _me, replaceProject) => <ProjectSettings project={project} onChanged={replaceProject} />}
    </ProjectScope>
  );
}
