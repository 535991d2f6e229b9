// The current project and a way to another: a button that opens the list of every
// organisation's projects (read when opened), with "New project" under each organisation.
import { useEffect, useRef, useState } from "preact/hooks";
import { listProjects } from "../api/console-api.ts";
import type { OrgDto, ProjectDto } from "../api/types.ts";
import { useResource } from "../hooks/use-resource.ts";
import { paths } from "../paths.ts";
import { ChevronsIcon, PlusIcon, SettingsIcon } from "../ui/icons.tsx";
import { ErrorState, Spinner } from "../ui/states.tsx";

const loadAll = (orgs: OrgDto[]) => Promise.all(orgs.map(async (org) => ({ org, projects: (await listProjects(org.id)).projects })));

function ProjectList({ orgs, current }: { orgs: OrgDto[]; current: ProjectDto }) {
  const [all, reload] = useResource(() => loadAll(orgs), [orgs]);
  if (all.status === "loading") {
    return (
      <p class="switcher-loading" role="status">
        <Spinner /> Loading projects…
      </p>
    );
  }
  if (all.status === "failed") return <ErrorState title="Projects could not be loaded" error={all.error} onRetry={reload} />;
  return (
    <>
      {all.data.map(({ org, projects }) => (
        <section key={org.id} class="switcher-org" aria-label={org.name}>
          <h2 class="switcher-org-name">{org.name}</h2>
          <ul>
            {projects.map((project) => (
              <li key={project.id}>
                <a href={paths.project(project.id)} class="switcher-item" aria-current={project.id === current.id ? "page" : undefined}>
                  <span class="switcher-item-name">{project.name}</span>
                  <span class="switcher-region">{project.region}</span>
                </a>
              </li>
            ))}
            <li>
              <a href={paths.newProject(org.id)} class="switcher-item switcher-new">
                <PlusIcon /> New project
              </a>
            </li>
            <li>
              <a href={paths.orgSettings(org.id)} class="switcher-item switcher-new" aria-label={`${org.name} settings`}>
                <SettingsIcon /> Organisation settings
              </a>
            </li>
          </ul>
        </section>
      ))}
    </>
  );
}

export function ProjectSwitcher({ orgs, project }: { orgs: OrgDto[]; project: ProjectDto }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const org = orgs.find((candidate) => candidate.id === project.org_id);

  useEffect(() => {
    if (!open) return;
    const close = (returnFocus: boolean) => {
      setOpen(false);
      if (returnFocus) toggle.current?.focus();
    };
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && close(true);
    const onPointer = (event: PointerEvent) => !root.current?.contains(event.target as Node) && close(false);
    // Following a link inside closes the list too.
    const onClick = (event: MouseEvent) => (event.target as Element).closest("a") && close(false);
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    root.current?.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
      root.current?.removeEventListener("click", onClick);
    };
  }, [open]);

  return (
    <div class="switcher" ref={root}>
      <button ref={toggle} type="button" class="switcher-toggle" aria-expanded={open} aria-controls="project-switcher-list" onClick={() => setOpen(!open)}>
        <span class="switcher-current">
          <span class="switcher-org-label">{org?.name ?? "Organisation"}</span>
          <span class="switcher-project-label">{project.name}</span>
        </span>
        <ChevronsIcon />
        <span class="visually-hidden">Switch project</span>
      </button>
      {open && (
        <div class="switcher-panel" id="project-switcher-list">
          <ProjectList orgs={orgs} current={project} />
        </div>
      )}
    </div>
  );
}
