// The dashboards' forms, each in a dialog: a dashboard's name, description and tags; a text
// tile's text; choosing a saved insight for a new tile. Limits are the API's
// (docs/dashboards.md, Limits), so a form refuses what the API would.
import { useId, useState } from "preact/hooks";
import type { InsightDto } from "../../api/insight-types.ts";
import { listInsights } from "../../api/insights.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Button } from "../../ui/button.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { TextField, TextAreaField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { useDebounced } from "./use-debounced.ts";

export const nameLengthMax = 200;
export const descriptionLengthMax = 2000;
export const tagsMax = 20;
export const tagLengthMax = 50;
export const textTileLengthMax = 4000;

/** Tags typed as a comma-separated list: trimmed, empty ones dropped. */
export const parseTags = (text: string) => text.split(",").map((tag) => tag.trim()).filter(Boolean);

export interface DashboardDetails {
  name: string;
  description: string | null;
  tags?: string[];
}

interface DetailsDialogProps {
  open: boolean;
  title: string;
  submitLabel: string;
  /** Shown filled in when editing; a new dashboard starts empty. */
  initial?: DashboardDetails & { tags: string[] };
  onClose(): void;
  onSubmit(details: DashboardDetails): Promise<void>;
}

export function DashboardDetailsDialog({ open, title, submitLabel, initial, onClose, onSubmit }: DetailsDialogProps) {
  const formId = useId();
  const action = useFormAction(async (fields) => {
    const tags = parseTags(fieldText(fields, "tags"));
    if (tags.length > tagsMax) throw new Error(`a dashboard takes at most ${tagsMax} tags`);
    const long = tags.find((tag) => tag.length > tagLengthMax);
    if (long !== undefined) throw new Error(`each tag is at most ${tagLengthMax} characters`);
    const description = fieldText(fields, "description").trim();
    await onSubmit({ name: fieldText(fields, "name").trim(), description: description || null, ...(initial ? { tags } : {}) });
  });
  return (
    <Dialog
      open={open}
      title={title}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={action.busy}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={action.busy}>{submitLabel}</Button>
        </>
      }
    >
      <form id={formId} class="form" onSubmit={action.onSubmit}>
        <FormError error={action.error} />
        <TextField label="Name" name="name" required maxLength={nameLengthMax} pattern=".*\S.*" defaultValue={initial?.name ?? ""} autoFocus />
        <TextAreaField label="Description" name="description" maxLength={descriptionLengthMax} rows={3} defaultValue={initial?.description ?? ""} hint="Optional. What this dashboard is for." />
        {initial && <TextField label="Tags" name="tags" defaultValue={initial.tags.join(", ")} hint={`Separated by commas; at most ${tagsMax}.`} />}
      </form>
    </Dialog>
  );
}

interface TextTileDialogProps {
  open: boolean;
  /** The tile's text when editing one. */
  initial?: string;
  onClose(): void;
  onSubmit(body: string): Promise<void>;
}

export function TextTileDialog({ open, initial, onClose, onSubmit }: TextTileDialogProps) {
  const formId = useId();
  const action = useFormAction(async (fields) => {
    const body = fieldText(fields, "body");
    if (!body.trim()) throw new Error("write some text for the tile");
    await onSubmit(body);
  });
  return (
    <Dialog
      open={open}
      wide
      title={initial === undefined ? "Add text" : "Edit text"}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={action.busy}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={action.busy}>{initial === undefined ? "Add text" : "Save text"}</Button>
        </>
      }
    >
      <form id={formId} class="form" onSubmit={action.onSubmit}>
        <FormError error={action.error} />
        <TextAreaField label="Text" name="body" required maxLength={textTileLengthMax} rows={8} defaultValue={initial ?? ""} autoFocus hint={`Shown as written, line breaks kept; up to ${textTileLengthMax.toLocaleString()} characters.`} />
      </form>
    </Dialog>
  );
}

const kindLabels: Record<string, string> = {
  trends: "Trends", funnel: "Funnel", retention: "Retention", paths: "Paths", lifecycle: "Lifecycle", stickiness: "Stickiness", revenue: "Revenue",
};
export const kindLabel = (kind: string) => kindLabels[kind] ?? kind;

function InsightChoices({ projectId, search, busyId, onChoose }: { projectId: string; search: string; busyId: string | null; onChoose(insight: InsightDto): void }) {
  const [insights, reload] = useResource(() => listInsights(projectId, { search }), [projectId, search]);
  if (insights.status === "loading") return <LoadingState label="Loading saved insights…" />;
  if (insights.status === "failed") return <ErrorState title="The insights could not be loaded" error={insights.error} onRetry={reload} />;
  const list = insights.data.insights;
  if (list.length === 0) {
    return <p class="picker-empty">{search ? "No saved insight matches." : "This project has no saved insights yet. Save one from an insight's page, then add it here."}</p>;
  }
  return (
    <ul class="picker-list" aria-label="Saved insights">
      {list.map((insight) => (
        <li key={insight.id}>
          <button type="button" class="picker-item" disabled={busyId !== null} aria-busy={busyId === insight.id ? "true" : undefined} onClick={() => onChoose(insight)}>
            <span class="picker-item-name">{insight.name}</span>
            <span class="picker-item-meta">
              {kindLabel(insight.query.insight.kind)}
              {insight.description ? ` · ${insight.description}` : ""}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

interface AddInsightDialogProps {
  open: boolean;
  projectId: string;
  onClose(): void;
  onChoose(insight: InsightDto): Promise<void>;
}

export function AddInsightDialog({ open, projectId, onClose, onChoose }: AddInsightDialogProps) {
  const [search, setSearch] = useState("");
  const debounced = useDebounced(search.trim());
  const [busyId, setBusyId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const choose = async (insight: InsightDto) => {
    setBusyId(insight.id);
    setError(null);
    try {
      await onChoose(insight);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusyId(null);
    }
  };
  return (
    <Dialog open={open} wide title="Add an insight" onClose={onClose} footer={<Button onClick={onClose}>Close</Button>}>
      <FormError error={error} />
      <TextField label="Search saved insights" name="search" type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} autoFocus />
      {open && <InsightChoices projectId={projectId} search={debounced} busyId={busyId} onChoose={choose} />}
    </Dialog>
  );
}
