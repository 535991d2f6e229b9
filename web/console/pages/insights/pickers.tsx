// The builder's pickers: an event (from the environment's stored event names, as text) and a
// property key (typed freely, with the stored keys suggested).
import { useId } from "preact/hooks";
import type { EventSchema, PropertySchema } from "../../api/query-types.ts";

interface EventPickerProps {
  label: string;
  value: string | null;
  events: readonly EventSchema[];
  /** Offer "All events" (a null event). */
  allowAll?: boolean;
  onChange(event: string | null): void;
}

/** Stands for the null event in the select (no stored event name can be empty). */
const allEvents = "";

export function EventPicker({ label, value, events, allowAll = true, onChange }: EventPickerProps) {
  const names = events.map((event) => event.name);
  if (value !== null && !names.includes(value)) names.unshift(value);
  return (
    <select class="input select" aria-label={label} value={value ?? allEvents} onChange={(event) => onChange(event.currentTarget.value === allEvents ? null : event.currentTarget.value)}>
      {(allowAll || value === null) && <option value={allEvents}>All events</option>}
      {names.map((name) => (
        <option key={name} value={name}>{name}</option>
      ))}
    </select>
  );
}

interface PropertyInputProps {
  label: string;
  value: string;
  properties: readonly PropertySchema[];
  placeholder?: string;
  /** Suggest only numeric keys (sums, averages, amounts). */
  numeric?: boolean;
  onChange(key: string): void;
}

export function PropertyInput({ label, value, properties, placeholder = "Property", numeric, onChange }: PropertyInputProps) {
  const listId = useId();
  const keys = properties.filter((property) => !numeric || property.type === "number").map((property) => property.key);
  return (
    <>
      <input class="input" aria-label={label} list={listId} value={value} placeholder={placeholder} onInput={(event) => onChange(event.currentTarget.value)} />
      <datalist id={listId}>
        {keys.map((key) => (
          <option key={key} value={key} />
        ))}
      </datalist>
    </>
  );
}
