// The sidebar's environment picker: which of the project's environments the pages show.
import type { ProjectDto } from "../api/types.ts";
import { chooseEnvironment, currentEnvironment } from "../state/environment.ts";

export function EnvironmentSwitcher({ project }: { project: ProjectDto }) {
  if (project.environments.length < 2) return null;
  return (
    <label class="environment-switcher">
      <span class="environment-switcher-label">Environment</span>
      <select class="input select" value={currentEnvironment(project)} onChange={(event) => chooseEnvironment(project.id, event.currentTarget.value)}>
        {project.environments.map(({ name }) => (
          <option key={name} value={name}>{name}</option>
        ))}
      </select>
    </label>
  );
}
