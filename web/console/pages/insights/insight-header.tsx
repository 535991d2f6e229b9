// The builder's heading and what can be done with the insight: save a new one (name and tags),
// and for a saved one save changes, rename, favourite and edit its tags.
import { useState } from "preact/hooks";
import { createInsight, favoriteInsight, updateInsight } from "../../api/insights.ts";
import type { InsightDto, InsightViz } from "../../api/insight-types.ts";
import type { QueryIrDocument } from "../../api/query-types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Button } from "../../ui/button.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { StarIcon } from "../../ui/icons.tsx";

/** Tags typed as one comma-separated line. */
export const parseTags = (text: string) => text.split(",").map((tag) => tag.trim()).filter(Boolean);

type Editing = "save" | "rename" | "tags" | null;

interface InsightHeaderProps {
  projectId: string;
  saved: InsightDto | null;
  query: QueryIrDocument;
  viz: InsightViz;
  dirty: boolean;
  /** A new insight was created, or the saved one changed. */
  onSaved(insight: InsightDto, created: boolean): void;
}

function DetailsDialog({ editing, saved, onClose, onSubmit }: { editing: Exclude<Editing, null>; saved: InsightDto | null; onClose(): void; onSubmit(fields: FormData): Promise<void> }) {
  const action = useFormAction(onSubmit);
  const titles = { save: "Save insight", rename: "Rename insight", tags: "Edit tags" };
  const form = `insight-${editing}-form`;
  return (
    <Dialog
      open
      title={titles[editing]}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={action.busy}>Cancel</Button>
          <Button variant="primary" type="submit" form={form} busy={action.busy}>{editing === "save" ? "Save" : editing === "rename" ? "Rename" : "Save tags"}</Button>
        </>
      }
    >
      <form id={form} class="form" onSubmit={action.onSubmit}>
        <FormError error={action.error} />
        {editing !== "tags" && <TextField label="Name" name="name" required maxLength={200} defaultValue={saved?.name ?? ""} autoFocus />}
        {editing !== "rename" && <TextField label="Tags" name="tags" hint="Comma separated, e.g. growth, weekly" defaultValue={saved?.tags.join(", ") ?? ""} autoFocus={editing === "tags"} />}
      </form>
    </Dialog>
  );
}

export function InsightHeader({ projectId, saved, query, viz, dirty, onSaved }: InsightHeaderProps) {
  const [editing, setEditing] = useState<Editing>(null);
  const [busy, setBusy] = useState<"save" | "favorite" | null>(null);
  const [error, setError] = useState<unknown>(null);

  const act = async (what: "save" | "favorite", call: () => Promise<InsightDto>) => {
    setBusy(what);
    setError(null);
    try {
      onSaved(await call(), false);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(null);
    }
  };

  const submit = async (fields: FormData) => {
    const name = fieldText(fields, "name").trim();
    const tags = parseTags(fieldText(fields, "tags"));
    if (editing === "save") {
      onSaved(await createInsight(projectId, { name, query, viz, tags }), true);
    } else if (saved) {
      onSaved(await updateInsight(projectId, saved.id, editing === "rename" ? { name } : { tags }), false);
    }
    setEditing(null);
  };

  return (
    <div class="insight-header">
      <div class="insight-header-title">
        <PageTitle title={saved?.name ?? "New insight"} />
        {saved && saved.tags.length > 0 && (
          <ul class="tag-list" aria-label="Tags">
            {saved.tags.map((tag) => <li key={tag} class="tag">{tag}</li>)}
          </ul>
        )}
      </div>
      <div class="insight-header-actions">
        {saved ? (
          <>
            <Button variant="ghost" aria-pressed={saved.favorited} busy={busy === "favorite"} onClick={() => act("favorite", () => favoriteInsight(projectId, saved.id, !saved.favorited))}>
              <StarIcon filled={saved.favorited} />
              {saved.favorited ? "Favourite" : "Add to favourites"}
            </Button>
            <Button onClick={() => setEditing("rename")}>Rename</Button>
            <Button onClick={() => setEditing("tags")}>Tags</Button>
            <Button variant="primary" disabled={!dirty} busy={busy === "save"} onClick={() => act("save", () => updateInsight(projectId, saved.id, { query, viz }))}>
              {dirty ? "Save changes" : "Saved"}
            </Button>
          </>
        ) : (
          <Button variant="primary" onClick={() => setEditing("save")}>Save</Button>
        )}
      </div>
      {error !== null && (
        <div class="insight-header-error">
          <FormError error={error} />
        </div>
      )}
      {editing && <DetailsDialog editing={editing} saved={saved} onClose={() => setEditing(null)} onSubmit={submit} />}
    </div>
  );
}
