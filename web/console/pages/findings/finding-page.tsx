// One finding: what moved and by how much, when, whether it was sent (or held back by the
// rule's daily cap), who acknowledged it, and each destination's delivery with every attempt
// (status, error, time). "Acknowledge" needs alerts:write (every role but the viewer).
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { acknowledgeFinding, getFinding, listDestinations, type AttemptDto, type DeliveryDto, type DestinationDto, type FindingDto } from "../../api/findings-api.ts";
import { isNotFound } from "../../api/http.ts";
import { listMembers } from "../../api/settings-api.ts";
import type { MeResponse, ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button, LinkButton } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { FactList } from "../../ui/fact-list.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { useAction } from "../settings/use-action.ts";
import { cadenceLabels, describeDelta, describePeriod, describeTarget, formatValue, severityBadges, severityLabels } from "./finding-format.ts";
import { FindingsNav } from "./findings-nav.tsx";
import { findingsTokens } from "./findings-region.ts";
import { alertsWriteReason } from "./permissions.ts";

const deliveryStateLabels: Record<DeliveryDto["state"], string> = { pending: "Pending", delivered: "Delivered", failed: "Failed" };
const deliveryStateBadges: Record<DeliveryDto["state"], string> = { pending: "badge badge-warning", delivered: "badge badge-success", failed: "badge badge-danger" };

function Attempts({ attempts, timeZone }: { attempts: AttemptDto[]; timeZone: string }) {
  return (
    <DataTable<AttemptDto>
      caption="Attempts"
      columns={[
        { label: "Attempt", numeric: true, cell: (attempt) => attempt.attempt },
        { label: "At", cell: (attempt) => formatDateTime(attempt.at, timeZone) },
        { label: "Result", cell: (attempt) => (attempt.ok ? <span class="badge badge-success">OK</span> : <span class="badge badge-danger">Failed</span>) },
        { label: "Status", cell: (attempt) => (attempt.status === null ? "no answer" : attempt.status) },
        { label: "Error", cell: (attempt) => attempt.error ?? "" },
        { label: "Took", numeric: true, cell: (attempt) => `${formatNumber(attempt.duration_ms)} ms` },
      ]}
      rows={attempts}
      rowKey={(attempt) => String(attempt.attempt)}
      empty={<p class="findings-note">No attempt yet.</p>}
    />
  );
}

function Deliveries({ finding, destinations, timeZone }: { finding: FindingDto; destinations: DestinationDto[] | null; timeZone: string }) {
  const deliveries = finding.deliveries ?? [];
  if (!finding.sent) return <p class="findings-note">Not sent: the rule had reached its daily cap when this was raised. It is kept here.</p>;
  if (deliveries.length === 0) return <p class="findings-note">No destination was to receive this finding (the rule names none, or none takes its severity).</p>;
  const nameOf = (id: string) => destinations?.find((destination) => destination.id === id)?.name ?? `Destination ${id}`;
  return (
    <>
      {deliveries.map((delivery) => (
        <section key={delivery.destination_id} class="card finding-delivery" aria-label={`Delivery to ${nameOf(delivery.destination_id)}`}>
          <div class="finding-delivery-head">
            <h3 class="finding-delivery-name">{nameOf(delivery.destination_id)}</h3>
            <span class={deliveryStateBadges[delivery.state]}>{deliveryStateLabels[delivery.state]}</span>
            {delivery.next_attempt_at !== null && <span class="findings-note">Next attempt {formatDateTime(delivery.next_attempt_at, timeZone)}</span>}
          </div>
          <Attempts attempts={delivery.attempts} timeZone={timeZone} />
        </section>
      ))}
    </>
  );
}

function FindingView({ project, me, initial }: { project: ProjectDto; me: MeResponse; initial: FindingDto }) {
  const [finding, setFinding] = useState(initial);
  const [destinations] = useResource(() => listDestinations(project.id), [project.id]);
  const blocked = alertsWriteReason(project.role, "acknowledge findings");
  const acknowledge = useAction(async () => {
    const acknowledged = await acknowledgeFinding(findingsTokens(project), finding.id);
    // The answer may leave out deliveries; the ones shown stay.
    setFinding({ ...acknowledged, deliveries: acknowledged.deliveries ?? finding.deliveries });
  });
  const { timezone } = project;
  // Who acknowledged it, by name: the id is a user of the organisation (or one who has left it).
  const [members] = useResource(() => listMembers(project.org_id), [project.org_id]);
  const acknowledgedBy =
    finding.acknowledged_by === null
      ? null
      : finding.acknowledged_by === me.user.id
        ? "you"
        : members.status === "ready"
          ? (members.data.members.find((member) => member.user_id === finding.acknowledged_by)?.name ?? "someone no longer in the organisation")
          : "a teammate";
  return (
    <>
      <section class="card finding-head" aria-label="Finding">
        <div class="finding-title-row">
          <span class={severityBadges[finding.severity]}>{severityLabels[finding.severity]}</span>
          <p class="finding-summary-large">{finding.summary}</p>
        </div>
        <FactList
          facts={[
            ["Rule", finding.rule_name],
            ["Watches", describeTarget(finding.target)],
            ["Cadence", cadenceLabels[finding.cadence]],
            ["Period", describePeriod(finding, timezone)],
            ["Value", formatValue(finding.target, finding.value)],
            ["Baseline", formatValue(finding.target, finding.baseline)],
            ["Change", describeDelta(finding)],
            ["Anomaly z", finding.anomaly_z === null ? "not used by the rule" : formatNumber(finding.anomaly_z)],
            ["Raised", formatDateTime(finding.raised_at, timezone)],
            ["Sent", finding.sent ? "Yes" : "No: the rule's daily cap was reached"],
            ["Acknowledged", finding.acknowledged_at === null ? "Not yet" : `${formatDateTime(finding.acknowledged_at, timezone)}${acknowledgedBy ? ` by ${acknowledgedBy}` : ""}`],
          ]}
        />
        {finding.acknowledged_at === null && (
          <div class="finding-actions">
            <FormError error={acknowledge.error} />
            <Button variant="primary" busy={acknowledge.busy} disabled={blocked !== null} aria-describedby={blocked ? "acknowledge-blocked" : undefined} onClick={() => void acknowledge.run()}>
              Acknowledge
            </Button>
            {blocked && <p id="acknowledge-blocked" class="field-hint">{blocked}</p>}
          </div>
        )}
      </section>
      <h2 class="section-subtitle">Deliveries</h2>
      <Deliveries finding={finding} destinations={destinations.status === "ready" ? destinations.data.destinations : null} timeZone={timezone} />
    </>
  );
}

function FindingContent({ project, me, findingId }: { project: ProjectDto; me: MeResponse; findingId: string }) {
  const [finding, reload] = useResource(() => getFinding(findingsTokens(project), findingId), [project.id, findingId]);
  return (
    <div class="page findings-page">
      <PageTitle title="Finding" />
      <FindingsNav project={project} current="findings" />
      <p><a href={paths.findings(project.id)}>← All findings</a></p>
      {finding.status === "loading" && <LoadingState label="Loading the finding…" />}
      {finding.status === "failed" &&
        (isNotFound(finding.error) ? (
          <EmptyState icon={<SearchOffIcon size={20} />} title="Finding not found" action={<LinkButton href={paths.findings(project.id)} variant="primary">See all findings</LinkButton>}>
            It may be older than the findings the region keeps, or of another project.
          </EmptyState>
        ) : (
          <ErrorState title="The finding could not be loaded" error={finding.error} onRetry={reload} />
        ))}
      {finding.status === "ready" && <FindingView key={finding.data.id} project={project} me={me} initial={finding.data} />}
    </div>
  );
}

export default function FindingPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project, me) => <FindingContent project={project} me={me} findingId={params.findingId!} />}</ProjectScope>;
}
