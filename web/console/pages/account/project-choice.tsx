// Which projects a credential reaches: every project of the organisation (those made later
// too), or only the ones ticked. Used by the token form and the OAuth consent page.
import type { ProjectDto } from "../../api/types.ts";

interface ProjectChoiceProps {
  projects: ProjectDto[];
  scope: "all" | "some";
  chosen: ReadonlySet<string>;
  onScope(scope: "all" | "some"): void;
  onChosen(chosen: Set<string>): void;
  /** What is given access: "the token", "the application". */
  subject?: string;
}

export function ProjectChoice({ projects, scope, chosen, onScope, onChosen, subject = "the token" }: ProjectChoiceProps) {
  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    onChosen(next);
  };
  return (
    <fieldset class="field">
      <legend class="field-label">Projects</legend>
      <label class="scope-box">
        <input type="radio" name="project-scope" checked={scope === "all"} onChange={() => onScope("all")} />
        <span>Every project of the organisation, those made later too</span>
      </label>
      <label class="scope-box">
        <input type="radio" name="project-scope" checked={scope === "some"} onChange={() => onScope("some")} disabled={projects.length === 0} />
        <span>Only the projects chosen below{projects.length === 0 ? " (the organisation has none yet)" : ""}</span>
      </label>
      {scope === "some" && (
        <div class="project-choices" role="group" aria-label={`Projects ${subject} reaches`}>
          {projects.map((project) => (
            <label key={project.id} class="scope-box">
              <input type="checkbox" checked={chosen.has(project.id)} onChange={(event) => toggle(project.id, event.currentTarget.checked)} />
              <span>{project.name}</span>
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}
