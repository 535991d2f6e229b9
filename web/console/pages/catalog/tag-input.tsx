// An event's tags as removable chips, with a field to add one (Enter or the Add button). Tags
// are free text (docs/catalog.md: at most 20, each 1-50 characters, distinct).
import { useId, useState } from "preact/hooks";
import { Button } from "../../ui/button.tsx";

export const tagsPerEventMax = 20;
export const tagLengthMax = 50;

export function TagInput({ tags, onChange, disabled }: { tags: string[]; onChange(tags: string[]): void; disabled?: boolean }) {
  const [draft, setDraft] = useState("");
  const id = useId();
  const add = () => {
    const tag = draft.trim();
    if (tag === "" || tags.includes(tag) || tags.length >= tagsPerEventMax) return;
    onChange([...tags, tag]);
    setDraft("");
  };
  return (
    <div class="field">
      <label for={id} class="field-label">Tags</label>
      {tags.length > 0 && (
        <ul class="tag-chips" aria-label="Tags">
          {tags.map((tag) => (
            <li key={tag} class="badge tag-chip">
              <span>{tag}</span>
              {!disabled && (
                <button type="button" class="tag-remove" aria-label={`Remove tag ${tag}`} onClick={() => onChange(tags.filter((kept) => kept !== tag))}>×</button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!disabled && (
        <div class="tag-add">
          <input
            id={id}
            class="input"
            value={draft}
            maxLength={tagLengthMax}
            placeholder={tags.length >= tagsPerEventMax ? `At most ${tagsPerEventMax} tags` : "Add a tag"}
            disabled={tags.length >= tagsPerEventMax}
            onInput={(input) => setDraft(input.currentTarget.value)}
            onKeyDown={(key) => {
              if (key.key === "Enter") {
                key.preventDefault();
                add();
              }
            }}
          />
          <Button onClick={add} disabled={draft.trim() === "" || tags.length >= tagsPerEventMax}>Add</Button>
        </div>
      )}
    </div>
  );
}
