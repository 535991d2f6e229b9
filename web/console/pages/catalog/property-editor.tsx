// An event's planned properties as editable rows: name, type, required, description, removed or
// added. A property keeps what this editor does not show (PII, allowed values, example) as it
// was, and its allowed values only while it stays a string (docs/catalog.md).
import { propertyTypes, type CatalogPropertyDto, type CatalogPropertyInput, type PropertyType } from "../../api/catalog.ts";
import { Button } from "../../ui/button.tsx";
import { PlusIcon } from "../../ui/icons.tsx";

export const propertiesPerEventMax = 100;
const propertyNameLengthMax = 1000;
const descriptionLengthMax = 2000;

export interface PropertyDraft {
  /** Tells rows apart while names are edited. */
  key: number;
  name: string;
  type: PropertyType;
  required: boolean;
  description: string;
  pii: boolean;
  enumValues: string[] | null;
  example: string | null;
}

let nextKey = 0;

export const draftOf = (property: CatalogPropertyDto): PropertyDraft => ({
  key: nextKey++,
  name: property.name,
  type: property.type,
  required: property.required,
  description: property.description ?? "",
  pii: property.pii,
  enumValues: property.enum_values,
  example: property.example,
});

const blankDraft = (): PropertyDraft => ({ key: nextKey++, name: "", type: "string", required: false, description: "", pii: false, enumValues: null, example: null });

export const inputOf = (draft: PropertyDraft): CatalogPropertyInput => ({
  name: draft.name,
  type: draft.type,
  required: draft.required,
  description: draft.description === "" ? null : draft.description,
  pii: draft.pii,
  enum_values: draft.type === "string" ? draft.enumValues : null,
  example: draft.example,
});

export function PropertyEditor({ drafts, onChange, disabled }: { drafts: PropertyDraft[]; onChange(drafts: PropertyDraft[]): void; disabled?: boolean }) {
  const update = (key: number, change: Partial<PropertyDraft>) => onChange(drafts.map((draft) => (draft.key === key ? { ...draft, ...change } : draft)));
  return (
    <fieldset class="property-editor" disabled={disabled}>
      <legend class="section-subtitle">Properties</legend>
      {drafts.length === 0 ? (
        <p class="muted-note">No properties are planned for this event.</p>
      ) : (
        <div class="table-scroll">
          <table class="data-table property-table">
            <caption class="visually-hidden">Planned properties</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Required</th>
                <th scope="col">Description</th>
                <th scope="col" class="cell-actions"><span class="visually-hidden">Remove</span></th>
              </tr>
            </thead>
            <tbody>
              {drafts.map((draft, index) => (
                <tr key={draft.key}>
                  <td>
                    <input class="input" required maxLength={propertyNameLengthMax} aria-label={`Name of property ${index + 1}`} value={draft.name} onInput={(input) => update(draft.key, { name: input.currentTarget.value })} />
                  </td>
                  <td>
                    <select class="input select" aria-label={`Type of ${draft.name || `property ${index + 1}`}`} value={draft.type} onChange={(change) => update(draft.key, { type: change.currentTarget.value as PropertyType })}>
                      {propertyTypes.map((type) => <option key={type} value={type}>{type}</option>)}
                    </select>
                  </td>
                  <td class="cell-check">
                    <input type="checkbox" aria-label={`${draft.name || `Property ${index + 1}`} is required`} checked={draft.required} onChange={(change) => update(draft.key, { required: change.currentTarget.checked })} />
                  </td>
                  <td>
                    <input class="input" maxLength={descriptionLengthMax} aria-label={`Description of ${draft.name || `property ${index + 1}`}`} value={draft.description} onInput={(input) => update(draft.key, { description: input.currentTarget.value })} />
                  </td>
                  <td class="cell-actions">
                    <Button small variant="ghost" aria-label={`Remove ${draft.name || `property ${index + 1}`}`} onClick={() => onChange(drafts.filter((kept) => kept.key !== draft.key))}>Remove</Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {!disabled && (
        <div>
          <Button small onClick={() => onChange([...drafts, blankDraft()])} disabled={drafts.length >= propertiesPerEventMax}><PlusIcon /> Add a property</Button>
        </div>
      )}
    </fieldset>
  );
}
