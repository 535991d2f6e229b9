// The environment a person is looking at in each project (production, staging, …): every page
// of the project reads and writes data in it, and the sidebar switches it. Remembered per
// project in localStorage (a name, nothing secret), so a reload opens the same one.
import { signal } from "@preact/signals";
import type { ProjectDto } from "../api/types.ts";

const storageKey = (projectId: string) => `svc-console-environment:${projectId}`;
const chosen = signal<Record<string, string>>({});

function stored(projectId: string): string | null {
  try {
    return localStorage.getItem(storageKey(projectId));
  } catch {
    return null;
  }
}

/** The project's environment names, the default (production) first. */
export const orderedEnvironments = (project: ProjectDto): string[] =>
  [...project.environments].sort((a, b) => Number(b.is_default) - Number(a.is_default)).map(({ name }) => name);

/** The project's chosen environment if it still exists, else its default one. */
export function currentEnvironment(project: ProjectDto): string {
  const names = project.environments.map(({ name }) => name);
  const wanted = chosen.value[project.id] ?? stored(project.id);
  if (wanted && names.includes(wanted)) return wanted;
  return (project.environments.find(({ is_default }) => is_default) ?? project.environments[0])!.name;
}

export function chooseEnvironment(projectId: string, environment: string): void {
  chosen.value = { ...chosen.value, [projectId]: environment };
  try {
    localStorage.setItem(storageKey(projectId), environment);
  } catch {
    // Storage off: the choice lasts until the tab closes.
  }
}
