// A multivariate flag's variants: key, name, split percentage (they add up to 100) and a JSON
// payload each; and a boolean flag's one payload.
import { Button } from "../../ui/button.tsx";
import { PlusIcon, TrashIcon } from "../../ui/icons.tsx";
import { InlineProblems } from "./flag-bits.tsx";
import { newVariant, splitSum, type VariantDraft } from "./flag-draft.ts";

/** A payload's text area grows with its lines, from 2 to 10. */
const textRows = (text: string) => Math.min(10, Math.max(2, text.split("\n").length));

interface VariantsEditorProps {
  variants: readonly VariantDraft[];
  /** Problems of the variants as a whole (the split's sum, too few). */
  problems: readonly string[];
  variantProblems(index: number): readonly string[];
  onChange(variants: VariantDraft[]): void;
}

export function VariantsEditor({ variants, problems, variantProblems, onChange }: VariantsEditorProps) {
  const set = (at: number, change: Partial<VariantDraft>) => onChange(variants.map((variant, i) => (i === at ? { ...variant, ...change } : variant)));
  const sum = splitSum(variants);
  const exact = sum !== null && Math.abs(sum - 100) <= 1e-9;
  return (
    <div class="variants">
      <ol class="variant-list">
        {variants.map((variant, v) => {
          const label = `Variant ${v + 1}`;
          return (
            <li key={variant.uid} class="variant" aria-label={label}>
              <div class="variant-fields">
                <label class="stacked-field">
                  <span>Key</span>
                  <input class="input" aria-label={`${label} key`} value={variant.key} maxLength={200} onInput={(event) => set(v, { key: event.currentTarget.value })} />
                </label>
                <label class="stacked-field">
                  <span>Name</span>
                  <input class="input" aria-label={`${label} name`} value={variant.name} maxLength={200} placeholder="optional" onInput={(event) => set(v, { name: event.currentTarget.value })} />
                </label>
                <label class="stacked-field stacked-field-narrow">
                  <span>Split %</span>
                  <input class="input input-number" type="number" min={0} max={100} step="any" aria-label={`${label} split percentage`} value={variant.rolloutText} onInput={(event) => set(v, { rolloutText: event.currentTarget.value })} />
                </label>
                <Button variant="ghost" small onClick={() => onChange(variants.filter((_, i) => i !== v))} aria-label={`Remove ${label.toLowerCase()}`}>
                  <TrashIcon />
                </Button>
              </div>
              <label class="stacked-field">
                <span>Payload (JSON, optional)</span>
                <textarea class="input textarea code-input" aria-label={`${label} payload`} rows={textRows(variant.payloadText)} spellcheck={false} value={variant.payloadText} placeholder='{"color": "blue"}' onInput={(event) => set(v, { payloadText: event.currentTarget.value })} />
              </label>
              <InlineProblems messages={variantProblems(v)} />
            </li>
          );
        })}
      </ol>
      <div class="variant-footer">
        <Button small onClick={() => onChange([...variants, newVariant(`variant-${variants.length + 1}`, 0)])}>
          <PlusIcon />
          Add variant
        </Button>
        <span class={exact ? "split-total split-total-ok" : "split-total split-total-off"} aria-live="polite">
          Total {sum === null ? "—" : `${Number(sum.toFixed(6))}%`}{exact ? "" : " (must be 100%)"}
        </span>
      </div>
      <InlineProblems messages={problems} />
    </div>
  );
}

export function PayloadEditor({ text, problems, onChange }: { text: string; problems: readonly string[]; onChange(text: string): void }) {
  return (
    <div class="field">
      <label class="field-label" for="flag-payload">Payload (JSON, optional)</label>
      <textarea id="flag-payload" class="input textarea code-input" rows={textRows(text)} spellcheck={false} value={text} placeholder='{"color": "blue"}' onInput={(event) => onChange(event.currentTarget.value)} />
      <p class="field-hint">Sent with the flag to the ids it is on for.</p>
      <InlineProblems messages={problems} />
    </div>
  );
}
