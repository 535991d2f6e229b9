// Recordings as a table (the replays list, a person's recordings): when it started (opening the
// player), who (linking to their profile), how long and how busy, where it began, errors and
// platform. Every value came from a recorded browser and is shown as text.
import type { Replay } from "../../api/replays-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { paths } from "../../paths.ts";
import { DataTable, type Column } from "../../ui/data-table.tsx";
import { formatDuration, formatStart } from "./replay-format.ts";

export function ErrorsBadge({ count }: { count: number }) {
  return count === 0 ? <span class="badge">None</span> : <span class="badge badge-danger">{count} error{count === 1 ? "" : "s"}</span>;
}

/** The distinct id the recording was made under, linking to its person; `clipped` cuts a long one short (all of it in the tooltip). */
export function ReplayPerson({ project, replay, clipped }: { project: ProjectDto; replay: Replay; clipped?: boolean }) {
  const className = clipped ? "mono replay-person-clipped" : "mono";
  return replay.person_id === null ? (
    <span class={className} title={replay.distinct_id}>{replay.distinct_id}</span>
  ) : (
    <a href={paths.person(project.id, replay.person_id)} class={`cell-link ${className}`} title={replay.distinct_id}>{replay.distinct_id}</a>
  );
}

export function ReplayTable({ project, replays, caption, withPerson = true }: { project: ProjectDto; replays: Replay[]; caption: string; withPerson?: boolean }) {
  const columns: Column<Replay>[] = [
    {
      label: `Started (${project.timezone})`,
      cell: (replay) => (
        <a href={paths.replay(project.id, replay.id)} class="cell-link nowrap" aria-label={`Watch the recording of ${formatDateTime(replay.start_time, project.timezone)}`}>
          <time dateTime={replay.start_time} title={formatDateTime(replay.start_time, project.timezone)}>{formatStart(replay.start_time, project.timezone)}</time>
        </a>
      ),
    },
    ...(withPerson ? [{ label: "Person", cell: (replay: Replay) => <ReplayPerson project={project} replay={replay} clipped /> }] : []),
    { label: "Duration", numeric: true, cell: (replay) => formatDuration(replay.duration_seconds) },
    { label: "Active", numeric: true, cell: (replay) => formatDuration(replay.active_seconds) },
    { label: "First URL", cell: (replay) => <span class="replay-url" title={replay.first_url ?? undefined}>{replay.first_url ?? "none"}</span> },
    { label: "Pages", numeric: true, cell: (replay) => replay.page_count },
    { label: "Clicks", numeric: true, cell: (replay) => replay.click_count },
    { label: "Keys", numeric: true, cell: (replay) => replay.keypress_count },
    { label: "Errors", cell: (replay) => <ErrorsBadge count={replay.console_error_count} /> },
    { label: "Platform", cell: (replay) => replay.platform },
  ];
  return (
    <div class="replay-table">
      <DataTable caption={caption} columns={columns} rows={replays} rowKey={(replay) => replay.id} />
    </div>
  );
}
