// The project a person last opened, so the console opens on it next time. Only its id is kept.
const storageKey = "svc-console-last-project";

export function lastProjectId(): string | null {
  try {
    return localStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

export function rememberProject(projectId: string): void {
  try {
    localStorage.setItem(storageKey, projectId);
  } catch {
    // Storage off: the console opens on the first project instead.
  }
}
