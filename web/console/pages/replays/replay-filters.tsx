// The replays list's filters, kept in the page's URL (a link shares the list as filtered): who,
// when (days in the project's time zone), how long, where, what they did, errors, platform.
import { useLocation } from "preact-iso";
import { replayPlatforms, type ReplayFilter } from "../../api/replays-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { zonedDayStart } from "../../format/zoned-day.ts";
import { paths } from "../../paths.ts";
import { Button, LinkButton } from "../../ui/button.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";

/** The URL's query names: GET /replays's, except that `from` and `to` are days (YYYY-MM-DD). */
const filterNames = ["distinct_id", "person_id", "from", "to", "duration_min", "duration_max", "url", "event", "has_errors", "platform"] as const;
type FilterName = (typeof filterNames)[number];
export type FilterQuery = Partial<Record<FilterName, string>>;

const isDay = (text: string | undefined): text is string => text !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(text);

export const filterQueryOf = (query: Record<string, string>): FilterQuery => Object.fromEntries(filterNames.filter((name) => query[name]).map((name) => [name, query[name]]));

/** GET /replays's filter for the URL's. */
export function replayFilterOf(query: FilterQuery, timeZone: string): ReplayFilter {
  const filter: ReplayFilter = {
    distinct_id: query.distinct_id,
    person_id: query.person_id,
    duration_min: query.duration_min,
    duration_max: query.duration_max,
    url: query.url,
    event: query.event,
    platform: query.platform,
  };
  if (isDay(query.from)) filter.from = zonedDayStart(query.from, timeZone).toISOString();
  // The whole day: up to the last millisecond before the next one begins.
  if (isDay(query.to)) filter.to = new Date(zonedDayStart(query.to, timeZone, 1).getTime() - 1).toISOString();
  if (query.has_errors === "true") filter.has_errors = "true";
  return filter;
}

export function ReplayFilters({ project, query, eventList }: { project: ProjectDto; query: FilterQuery; eventList: string }) {
  const { route } = useLocation();
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const chosen: Record<string, string> = {};
    for (const name of filterNames) {
      const value = String(fields.get(name) ?? "").trim();
      if (value) chosen[name] = value;
    }
    route(paths.replays(project.id, chosen));
  };
  const filtered = Object.keys(query).length > 0;
  return (
    <form class="search-form replay-filters" onSubmit={onSubmit} role="search" aria-label="Filter recordings">
      <div class="replay-filter-grid">
        <TextField label="Distinct id" name="distinct_id" type="search" defaultValue={query.distinct_id ?? ""} placeholder="user-42" maxLength={200} hint="Finds the recordings of all the person's ids." />
        <TextField label="Person id" name="person_id" type="search" defaultValue={query.person_id ?? ""} maxLength={200} />
        <TextField label="Started from" name="from" type="date" defaultValue={query.from ?? ""} hint={`Days in ${project.timezone}.`} />
        <TextField label="Started until" name="to" type="date" defaultValue={query.to ?? ""} />
        <TextField label="Duration at least (s)" name="duration_min" inputMode="decimal" defaultValue={query.duration_min ?? ""} placeholder="0" />
        <TextField label="Duration at most (s)" name="duration_max" inputMode="decimal" defaultValue={query.duration_max ?? ""} placeholder="any" />
        <TextField label="URL contains" name="url" type="search" defaultValue={query.url ?? ""} placeholder="/checkout" maxLength={2000} />
        <TextField label="Performed event" name="event" list={eventList} defaultValue={query.event ?? ""} placeholder="purchase" maxLength={400} hint="During the recorded session." />
        <SelectField label="Platform" name="platform" defaultValue={query.platform ?? ""}>
          <option value="">Any</option>
          {replayPlatforms.map((platform) => <option key={platform} value={platform}>{platform}</option>)}
        </SelectField>
        <label class="check">
          <input type="checkbox" name="has_errors" value="true" defaultChecked={query.has_errors === "true"} />
          Only with console errors
        </label>
      </div>
      <div class="search-actions">
        <Button type="submit" variant="primary">Filter</Button>
        {filtered && <LinkButton href={paths.replays(project.id)} variant="ghost">Clear</LinkButton>}
      </div>
    </form>
  );
}
