// Deleting the project: its name typed to confirm; then home. The control plane soft-deletes it
// and revokes every key at once, so ingest refuses its events from then on.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { deleteProject } from "../../api/settings-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { paths } from "../../paths.ts";
import { Button } from "../../ui/button.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { adminOnlyReason } from "./permissions.ts";
import { roleNoteId, SettingsSection } from "./settings-section.tsx";
import { useAction } from "./use-action.ts";

const sectionId = "delete-project";

function DeleteDialog({ project, onClose }: { project: ProjectDto; onClose(): void }) {
  const { route } = useLocation();
  const [typed, setTyped] = useState("");
  const remove = useAction(async () => {
    await deleteProject(project.id);
    route(paths.home);
  });
  const confirmed = typed === project.name;
  return (
    <Dialog
      open
      title="Delete this project?"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={remove.busy}>Cancel</Button>
          <Button variant="danger" busy={remove.busy} disabled={!confirmed} onClick={() => void remove.run()}>Delete project</Button>
        </>
      }
    >
      <FormError error={remove.error} />
      <p>
        <strong>{project.name}</strong> disappears from the console and the API, every one of its keys is revoked, and its events can no longer be
        sent or read. This cannot be undone.
      </p>
      <TextField
        label="Type the project's name to confirm"
        name="confirm-name"
        autoComplete="off"
        value={typed}
        onInput={(event) => setTyped(event.currentTarget.value)}
      />
    </Dialog>
  );
}

export function DeleteProjectSection({ project }: { project: ProjectDto }) {
  const blocked = adminOnlyReason(project.role, "delete the project");
  const [open, setOpen] = useState(false);
  return (
    <SettingsSection
      id={sectionId}
      danger
      title="Delete the project"
      description="Deleting the project revokes its keys and removes it, its insights and its data from the console."
      blockedReason={blocked}
    >
      <div>
        <Button variant="danger" onClick={() => setOpen(true)} disabled={blocked !== null} aria-describedby={blocked ? roleNoteId(sectionId) : undefined}>
          Delete project
        </Button>
      </div>
      {open && <DeleteDialog project={project} onClose={() => setOpen(false)} />}
    </SettingsSection>
  );
}
