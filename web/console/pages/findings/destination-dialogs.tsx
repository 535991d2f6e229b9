// The destinations page's dialogs: create and edit (one form), and delete after confirming.
// The API's refusals are shown above the form in its words.
import { createDestination, deleteDestination, updateDestination, type DestinationDto } from "../../api/findings-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useFormAction } from "../../hooks/use-form-action.ts";
import { Button } from "../../ui/button.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { useAction } from "../settings/use-action.ts";
import { DestinationFields, readDestination, useDestinationKind } from "./destination-form.tsx";

const formId = "destination-form";

export function DestinationDialog({ project, existing, onClose, onSaved }: { project: ProjectDto; existing: DestinationDto | null; onClose(): void; onSaved(destination: DestinationDto): void }) {
  const [kind, setKind] = useDestinationKind(existing);
  const form = useFormAction(async (fields) => {
    const input = readDestination(fields, kind, existing === null);
    onSaved(existing === null ? await createDestination(project.id, input) : await updateDestination(project.id, existing.id, input));
  });
  return (
    <Dialog
      open
      title={existing === null ? "New destination" : `Edit ${existing.name}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={form.busy}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={form.busy}>{existing === null ? "Create destination" : "Save"}</Button>
        </>
      }
    >
      <form id={formId} class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <DestinationFields existing={existing} kind={kind} onKind={setKind} />
      </form>
    </Dialog>
  );
}

export function DeleteDestinationDialog({ project, destination, onClose, onDeleted }: { project: ProjectDto; destination: DestinationDto; onClose(): void; onDeleted(): void }) {
  const remove = useAction(async () => {
    await deleteDestination(project.id, destination.id);
    onDeleted();
  });
  return (
    <ConfirmDialog open title="Delete this destination?" confirmLabel="Delete destination" danger busy={remove.busy} onConfirm={() => void remove.run()} onClose={onClose}>
      <FormError error={remove.error} />
      <p>
        <strong>{destination.name}</strong> receives no more findings from any rule. Findings already raised stay. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
