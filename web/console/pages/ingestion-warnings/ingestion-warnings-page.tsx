// "Ingestion warnings": what ingest refused or changed in the environment over the last days,
// per reason (count, last seen) and per message, each with an example of the event as its
// sender sent it, shown as text. SDKs rarely show a rejection; this is where a person sees it.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { listIngestionWarnings, warningReasons, type WarningEntry, type WarningReason } from "../../api/ingestion-warnings.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { CheckIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { reasonInfo } from "./warning-reasons.ts";

/** The ranges offered, in days ending today (the region keeps warnings 30 days). */
const rangeDays = [1, 7, 30] as const;
const dayMs = 86_400_000;
const utcDay = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

interface ReasonTotal {
  reason: WarningReason;
  count: number;
  lastSeen: string;
}

function totalsByReason(entries: WarningEntry[]): ReasonTotal[] {
  const totals = new Map<WarningReason, ReasonTotal>();
  for (const entry of entries) {
    const total = totals.get(entry.reason);
    if (!total) totals.set(entry.reason, { reason: entry.reason, count: entry.count, lastSeen: entry.last_seen });
    else {
      total.count += entry.count;
      if (entry.last_seen > total.lastSeen) total.lastSeen = entry.last_seen;
    }
  }
  return [...totals.values()].sort((a, b) => b.count - a.count);
}

/** The example pretty-printed when it is whole JSON; as it came when it was cut (it then ends with …). */
function exampleText(example: string): string {
  try {
    return JSON.stringify(JSON.parse(example), null, 2);
  } catch {
    return example;
  }
}

function Seen({ at, timeZone }: { at: string; timeZone: string }) {
  return <time dateTime={at} title={formatDateTime(at, timeZone)}>{formatRelative(at)}</time>;
}

function WarningCard({ entry, timeZone }: { entry: WarningEntry; timeZone: string }) {
  const [open, setOpen] = useState(false);
  const info = reasonInfo[entry.reason];
  return (
    <li class="card warning-card">
      <div class="warning-head">
        <span class={info.refused ? "badge badge-danger" : "badge badge-warning"}>{info.label}</span>
        <p class="warning-message">{entry.message}</p>
        <span class="warning-count">{formatNumber(entry.count)} {entry.count === 1 ? "event" : "events"}</span>
      </div>
      <p class="warning-seen">
        Last seen <Seen at={entry.last_seen} timeZone={timeZone} />, first seen <Seen at={entry.first_seen} timeZone={timeZone} />. Per UTC day:{" "}
        {entry.days.map(({ day, count }) => `${day} (${formatNumber(count)})`).join(", ")}.
      </p>
      <div>
        <Button small onClick={() => setOpen(!open)} aria-expanded={open}>{open ? "Hide the example" : "Show an example"}</Button>
      </div>
      {open && <CodeBlock code={exampleText(entry.example)} label={`Example event: ${entry.message}`} />}
    </li>
  );
}

function Warnings({ entries, timeZone }: { entries: WarningEntry[]; timeZone: string }) {
  return (
    <>
      <section class="card table-card" aria-label="Per reason">
        <DataTable<ReasonTotal>
          caption="Warnings per reason"
          columns={[
            { label: "Reason", cell: (total) => <span class="text-strong">{reasonInfo[total.reason].label}</span> },
            { label: "What happened", cell: (total) => reasonInfo[total.reason].meaning },
            { label: "Events", numeric: true, cell: (total) => formatNumber(total.count) },
            { label: "Last seen", cell: (total) => <Seen at={total.lastSeen} timeZone={timeZone} /> },
          ]}
          rows={totalsByReason(entries)}
          rowKey={(total) => total.reason}
        />
      </section>
      <h2 class="section-subtitle">Messages and examples</h2>
      <ul class="warning-list">
        {entries.map((entry) => <WarningCard key={`${entry.reason}\u0000${entry.message}`} entry={entry} timeZone={timeZone} />)}
      </ul>
    </>
  );
}

function IngestionWarningsContent({ project }: { project: ProjectDto }) {
  const { environment, tokens } = useRegion(project);
  const [days, setDays] = useState<number>(7);
  const [reason, setReason] = useState<WarningReason | "">("");
  const to = utcDay(Date.now());
  const from = utcDay(Date.parse(`${to}T00:00:00Z`) - (days - 1) * dayMs);
  const [list, reload] = useResource(() => listIngestionWarnings(tokens, { reason: reason || null, from, to }), [tokens, from, to, reason]);
  const period = days === 1 ? "today (UTC)" : `the last ${days} days`;

  return (
    <div class="page">
      <PageTitle title="Ingestion warnings">
        What ingest refused or changed in <span class="text-strong">{environment}</span>: SDKs rarely tell, so it is counted here, with an example of each.
      </PageTitle>
      <div class="card filter-bar warning-filters">
        <SelectField label="Period" name="days" value={String(days)} onChange={(change) => setDays(Number(change.currentTarget.value))}>
          {rangeDays.map((count) => <option key={count} value={count}>{count === 1 ? "Today (UTC)" : `Last ${count} days`}</option>)}
        </SelectField>
        <SelectField label="Reason" name="reason" value={reason} onChange={(change) => setReason(change.currentTarget.value as WarningReason | "")}>
          <option value="">Every reason</option>
          {warningReasons.map((name) => <option key={name} value={name}>{reasonInfo[name].label}</option>)}
        </SelectField>
        <div class="filter-actions">
          <Button onClick={reload}>Refresh</Button>
        </div>
      </div>
      {list.status === "loading" && <LoadingState label="Loading the warnings…" />}
      {list.status === "failed" && <ErrorState title="The warnings could not be loaded" error={list.error} onRetry={reload} />}
      {list.status === "ready" &&
        (list.data.results.length === 0 ? (
          <EmptyState icon={<CheckIcon size={20} />} title="Everything is fine">
            {reason === ""
              ? `No warnings in ${period}: every event sent to ${environment} was stored as it was sent.`
              : `No ${reasonInfo[reason].label.toLowerCase()} warnings in ${period}.`}
          </EmptyState>
        ) : (
          <Warnings entries={list.data.results} timeZone={project.timezone} />
        ))}
    </div>
  );
}

export default function IngestionWarningsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <IngestionWarningsContent project={project} />}</ProjectScope>;
}
