// Persons as a table (the persons list, a cohort preview's sample, a group's members): what to
// call them (linking to their profile), their distinct ids, a few properties, whether they are
// identified and when they were first seen.
import type { Person } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { paths } from "../../paths.ts";
import { DataTable, type Column } from "../../ui/data-table.tsx";
import { personName, sampleProperties } from "./person-name.ts";
import { PropertyValue } from "./personal-data.tsx";

/** Distinct ids a row lists before saying how many more there are. */
const distinctIdsShown = 3;

/** When something was first seen, relative; the exact time in the project's time zone on hover. */
export function FirstSeen({ iso, timeZone }: { iso: string; timeZone: string }) {
  return <time class="nowrap" dateTime={iso} title={formatDateTime(iso, timeZone)}>{formatRelative(iso)}</time>;
}

export function PropertyChips({ properties, masking }: { properties: Record<string, unknown>; masking: boolean }) {
  return (
    <ul class="property-chips">
      {sampleProperties(properties, 3).map(([key, value]) => (
        <li key={key} class="property-chip"><span class="property-chip-key">{key}</span><PropertyValue value={value} masking={masking} /></li>
      ))}
    </ul>
  );
}

export function PersonTable({ project, persons, masking, caption }: { project: ProjectDto; persons: Person[]; masking: boolean; caption: string }) {
  const columns: Column<Person>[] = [
    { label: "Person", cell: (person) => <a href={paths.person(project.id, person.id)} class="cell-link">{personName(person)}</a> },
    {
      label: "Distinct ids",
      cell: ({ distinct_ids: ids }) => (
        <span class="mono">
          {ids.slice(0, distinctIdsShown).join(", ")}
          {ids.length > distinctIdsShown && <span class="cell-sub">and {ids.length - distinctIdsShown} more</span>}
        </span>
      ),
    },
    { label: "Properties", cell: (person) => <PropertyChips properties={person.properties} masking={masking} /> },
    { label: "Identified", cell: (person) => (person.is_identified ? "Yes" : "No") },
    { label: "First seen", cell: (person) => <FirstSeen iso={person.created_at} timeZone={project.timezone} /> },
  ];
  return <DataTable caption={caption} columns={columns} rows={persons} rowKey={(person) => person.id} />;
}
