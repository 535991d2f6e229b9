// "Findings": what the rules raised, newest first (the region's GET /findings), 50 at a time
// with "Load more"; filtered by rule and to those nobody acknowledged yet (both kept in the
// URL). A finding's rule name opens it with its deliveries.
import { useLocation, useRoute } from "preact-iso";
import { listFindings, listRules, type FindingDto } from "../../api/findings-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button, LinkButton } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { BellIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { describeChange, describePeriod, severityBadges, severityLabels } from "./finding-format.ts";
import { FindingsNav } from "./findings-nav.tsx";
import { findingsEnvironment, findingsTokens } from "./findings-region.ts";

function FindingsTable({ project, findings }: { project: ProjectDto; findings: FindingDto[] }) {
  return (
    <DataTable<FindingDto>
      caption="Findings, newest first"
      columns={[
        { label: "Raised", cell: (finding) => <time class="findings-nowrap" dateTime={finding.raised_at} title={formatDateTime(finding.raised_at, project.timezone)}>{formatRelative(finding.raised_at)}</time> },
        { label: "Severity", cell: (finding) => <span class={severityBadges[finding.severity]}>{severityLabels[finding.severity]}</span> },
        { label: "Rule", cell: (finding) => <a class="text-strong" href={paths.finding(project.id, finding.id)}>{finding.rule_name}</a> },
        { label: "Summary", cell: (finding) => <span class="finding-summary">{finding.summary}</span> },
        { label: "Period", cell: (finding) => describePeriod(finding, project.timezone) },
        { label: "Value vs baseline", cell: (finding) => describeChange(finding) },
        {
          label: "State",
          cell: (finding) =>
            finding.acknowledged_at === null ? <span class="badge badge-accent">New</span> : <span class="badge badge-success" title={formatDateTime(finding.acknowledged_at, project.timezone)}>Acknowledged</span>,
        },
      ]}
      rows={findings}
      rowKey={(finding) => finding.id}
    />
  );
}

function FindingsContent({ project }: { project: ProjectDto }) {
  const { query } = useRoute();
  const { route } = useLocation();
  const ruleId = query.rule || null;
  const unacknowledged = query.unacknowledged === "1";
  const tokens = findingsTokens(project);
  const [rules] = useResource(() => listRules(project.id), [project.id]);
  const controls = usePagedList(
    (cursor) =>
      listFindings(tokens, { ruleId, acknowledged: unacknowledged ? false : null, offset: cursor === null ? 0 : Number(cursor) }).then((page) => ({
        results: page.findings,
        next_cursor: page.next_offset === null ? null : String(page.next_offset),
      })),
    [tokens, ruleId, unacknowledged],
  );
  const { list, reload } = controls;
  const filtered = ruleId !== null || unacknowledged;
  const setFilter = (filter: { rule?: string | null; unacknowledged?: boolean }) =>
    route(paths.findings(project.id, { rule: ruleId, unacknowledged, ...filter }), true);

  return (
    <div class="page findings-page">
      <PageTitle title="Findings">
        What your rules noticed in <span class="text-strong">{findingsEnvironment(project)}</span>: a number that moved away from its usual level, newest first.
      </PageTitle>
      <FindingsNav project={project} current="findings" />
      <div class="card filter-bar findings-filters">
        <SelectField label="Rule" name="rule" value={ruleId ?? ""} onChange={(change) => setFilter({ rule: change.currentTarget.value || null })}>
          <option value="">Every rule</option>
          {rules.status === "ready" && rules.data.rules.map((rule) => <option key={rule.id} value={rule.id}>{rule.name}</option>)}
          {ruleId !== null && (rules.status !== "ready" || !rules.data.rules.some((rule) => rule.id === ruleId)) && <option value={ruleId}>A deleted rule</option>}
        </SelectField>
        <label class="check findings-unacknowledged">
          <input type="checkbox" checked={unacknowledged} onChange={(change) => setFilter({ unacknowledged: change.currentTarget.checked })} />
          Only unacknowledged
        </label>
        <div class="filter-actions">
          <Button onClick={reload}>Refresh</Button>
        </div>
      </div>
      {list.status === "loading" && <LoadingState label="Loading the findings…" />}
      {list.status === "failed" && <ErrorState title="The findings could not be loaded" error={list.error} onRetry={reload} />}
      {list.status === "ready" &&
        (list.items.length === 0 ? (
          <EmptyState
            icon={<BellIcon size={20} />}
            title={filtered ? "No findings match" : "No findings yet"}
            action={!filtered && <LinkButton variant="primary" href={paths.findingRules(project.id)}>Set up a rule</LinkButton>}
          >
            {filtered
              ? "Nothing raised matches these filters."
              : "A rule watches an event's volume, a conversion, a metric or ingestion warnings, and raises a finding when it moves away from its usual level."}
          </EmptyState>
        ) : (
          <section class="card table-card findings-table" aria-label="Findings">
            <FindingsTable project={project} findings={list.items} />
            <LoadMore controls={controls} />
          </section>
        ))}
    </div>
  );
}

export default function FindingsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <FindingsContent project={project} />}</ProjectScope>;
}
