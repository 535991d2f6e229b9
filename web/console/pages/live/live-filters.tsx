// The live events filters. Event name and distinct id are the route's own (exact matches, sent
// with the stream, so they also pick the recent events it starts with); "properties contain"
// is checked in the browser on the events already received, because the route matches
// property values only exactly.
import { useState } from "preact/hooks";
import type { LiveEventsFilters } from "../../api/live-events.ts";
import { Button } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";

/** The route's bound on a name or id filter (docs/live-events.md). */
export const liveFilterLengthMax = 200;

interface LiveFiltersProps {
  filters: LiveEventsFilters;
  onApply(filters: LiveEventsFilters): void;
  contains: string;
  onContainsChange(text: string): void;
}

const filled = (value: string) => (value === "" ? undefined : value);

export function LiveFilters({ filters, onApply, contains, onContainsChange }: LiveFiltersProps) {
  const [event, setEvent] = useState(filters.event ?? "");
  const [distinctId, setDistinctId] = useState(filters.distinct_id ?? "");
  const apply = (submit: SubmitEvent) => {
    submit.preventDefault();
    onApply({ event: filled(event), distinct_id: filled(distinctId) });
  };
  const reset = () => {
    setEvent("");
    setDistinctId("");
    onContainsChange("");
    onApply({});
  };
  return (
    <form class="card filter-bar" onSubmit={apply} aria-label="Filter live events">
      <TextField label="Event name" name="event" value={event} maxLength={liveFilterLengthMax} placeholder="Any event" hint="Exact name" onInput={(input) => setEvent(input.currentTarget.value)} />
      <TextField label="Distinct ID" name="distinct_id" value={distinctId} maxLength={liveFilterLengthMax} placeholder="Anyone" hint="Exact id" onInput={(input) => setDistinctId(input.currentTarget.value)} />
      <TextField
        label="Properties contain"
        name="contains"
        value={contains}
        placeholder="Text in a key or value"
        hint="Checked in your browser on the events shown"
        onInput={(input) => onContainsChange(input.currentTarget.value)}
      />
      <div class="filter-actions">
        <Button type="submit" variant="primary">Apply</Button>
        <Button onClick={reset}>Reset</Button>
      </div>
    </form>
  );
}
