// The rules page's dialogs: create and edit (one form, with the production environment's event
// names and the project's metrics to pick from), and delete after confirming.
import { listMetrics } from "../../api/experiments-api.ts";
import { createRule, deleteRule, updateRule, type DestinationDto, type RuleDto } from "../../api/findings-api.ts";
import { listEventNames } from "../../api/insights.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Button } from "../../ui/button.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { useAction } from "../settings/use-action.ts";
import { findingsTokens } from "./findings-region.ts";
import { readRule, RuleFields, useTargetKind } from "./rule-form.tsx";

const formId = "rule-form";

interface RuleDialogProps {
  project: ProjectDto;
  existing: RuleDto | null;
  destinations: readonly DestinationDto[];
  onClose(): void;
  onSaved(rule: RuleDto): void;
}

export function RuleDialog({ project, existing, destinations, onClose, onSaved }: RuleDialogProps) {
  const [kind, setKind] = useTargetKind(existing);
  // Suggestions only: without them the fields are typed.
  const [events] = useResource(() => listEventNames(findingsTokens(project)).then(({ events }) => events.map((event) => event.name)), [project.id]);
  const [metrics] = useResource(() => listMetrics(project.id).then(({ metrics }) => metrics), [project.id]);
  const form = useFormAction(async (fields) => {
    const input = readRule(fields, kind);
    onSaved(existing === null ? await createRule(project.id, input) : await updateRule(project.id, existing.id, input));
  });
  return (
    <Dialog
      open
      wide
      title={existing === null ? "New rule" : `Edit ${existing.name}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={form.busy}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={form.busy}>{existing === null ? "Create rule" : "Save"}</Button>
        </>
      }
    >
      <form id={formId} class="form rule-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <RuleFields
          existing={existing}
          events={events.status === "ready" ? events.data : []}
          metrics={metrics.status === "ready" ? metrics.data : metrics.status === "failed" ? null : []}
          destinations={destinations}
          kind={kind}
          onKind={setKind}
        />
      </form>
    </Dialog>
  );
}

export function DeleteRuleDialog({ project, rule, onClose, onDeleted }: { project: ProjectDto; rule: RuleDto; onClose(): void; onDeleted(): void }) {
  const remove = useAction(async () => {
    await deleteRule(project.id, rule.id);
    onDeleted();
  });
  return (
    <ConfirmDialog open title="Delete this rule?" confirmLabel="Delete rule" danger busy={remove.busy} onConfirm={() => void remove.run()} onClose={onClose}>
      <FormError error={remove.error} />
      <p>
        <strong>{rule.name}</strong> is no longer evaluated. The findings it raised stay listed. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
