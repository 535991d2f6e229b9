// "/projects/{id}": a project opens on its first section.
import { useRoute } from "preact-iso";
import { Redirect } from "../../layouts/guards.tsx";
import { projectSections } from "../../layouts/project-sections.ts";

export default function ProjectHomePage() {
  const { params } = useRoute();
  return <Redirect to={projectSections[0]!.href(params.projectId!)} />;
}
