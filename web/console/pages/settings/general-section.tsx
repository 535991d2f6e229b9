// The project's name, which admins and owners can change, and what is fixed when a project is
// made: its region, time zone and currency (the API renames only).
import { useState } from "preact/hooks";
import { renameProject } from "../../api/settings-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { nameLengthMax } from "../auth/account-rules.ts";
import { adminOnlyReason } from "./permissions.ts";
import { Fact, roleNoteId, SettingsSection } from "./settings-section.tsx";

const sectionId = "general";

export function GeneralSection({ project, onRenamed }: { project: ProjectDto; onRenamed(project: ProjectDto): void }) {
  const blocked = adminOnlyReason(project.role, "rename the project");
  const [name, setName] = useState(project.name);
  const [saved, setSaved] = useState(false);
  const form = useFormAction(async (fields) => {
    setSaved(false);
    const typed = fieldText(fields, "name").trim();
    if (!typed) throw new Error("the name must not be empty");
    const renamed = await renameProject(project.id, typed);
    setName(renamed.name);
    onRenamed(renamed);
    setSaved(true);
  });
  return (
    <SettingsSection id={sectionId} title="General" blockedReason={blocked}>
      <form class="form settings-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        {saved && <Alert tone="success">The project is renamed.</Alert>}
        <div class="inline-form">
          <TextField
            label="Project name"
            name="name"
            required
            maxLength={nameLengthMax}
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
            disabled={blocked !== null}
            aria-describedby={blocked ? roleNoteId(sectionId) : undefined}
          />
          <Button type="submit" variant="primary" busy={form.busy} disabled={blocked !== null} aria-describedby={blocked ? roleNoteId(sectionId) : undefined}>
            Save name
          </Button>
        </div>
      </form>
      <dl class="facts">
        <Fact term="Region">{project.region}</Fact>
        <Fact term="Time zone">{project.timezone}</Fact>
        <Fact term="Currency">{project.currency}</Fact>
        <Fact term="Data kept">{project.retention_days} days</Fact>
        <Fact term="Project ID" wide><code>{project.id}</code></Fact>
      </dl>
      <p class="settings-description">
        The region, time zone and currency are chosen when a project is created and cannot be changed: the project's data is stored in its region, and
        its charts are counted in its time zone.
      </p>
    </SettingsSection>
  );
}

export function EnvironmentsSection({ project }: { project: ProjectDto }) {
  return (
    <SettingsSection
      id="environments"
      title="Environments"
      description="Every project has the same three environments, made with it: production (the default), staging and development. They cannot be added, renamed or deleted. Each keeps its own events, public key, flag configuration and flag secret keys; the sidebar picks the one the pages show."
    >
      <ul class="environment-list">
        {project.environments.map((environment) => (
          <li key={environment.id} class="environment-item">
            <span class="environment-name">{environment.name}</span>
            {environment.is_default && <span class="badge">default</span>}
          </li>
        ))}
      </ul>
    </SettingsSection>
  );
}
