// "Rules": what is watched and when a finding is raised. Listed with their target, cadence,
// thresholds and destinations; created and edited in a dialog, enabled or disabled in place,
// deleted after confirming. Changes need alerts:write.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { listDestinations, listRules, updateRule, type DestinationDto, type RuleDto } from "../../api/findings-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { BellIcon, PlusIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, Loaded } from "../../ui/states.tsx";
import { useAction } from "../settings/use-action.ts";
import { cadenceLabels, describeTarget, describeThresholds, severityLabels } from "./finding-format.ts";
import { FindingsNav } from "./findings-nav.tsx";
import { DeleteRuleDialog, RuleDialog } from "./rule-dialogs.tsx";
import { alertsWriteReason } from "./permissions.ts";

const blockedNoteId = "rules-blocked";

type Opened = { kind: "create" } | { kind: "edit" | "delete"; rule: RuleDto } | null;

function RulesView({ project, initialRules, destinations }: { project: ProjectDto; initialRules: RuleDto[]; destinations: DestinationDto[] }) {
  const [rules, setRules] = useState(initialRules);
  const [opened, setOpened] = useState<Opened>(null);
  const blocked = alertsWriteReason(project.role, "create, change or delete rules");
  const writeProps = { disabled: blocked !== null, "aria-describedby": blocked ? blockedNoteId : undefined };
  const close = () => setOpened(null);
  const upsert = (saved: RuleDto) =>
    setRules((current) => [...current.filter((item) => item.id !== saved.id), saved].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)));
  const toggle = useAction(async (rule: RuleDto) => upsert(await updateRule(project.id, rule.id, { enabled: !rule.enabled })));
  const nameOf = (id: string) => destinations.find((destination) => destination.id === id)?.name ?? "a deleted destination";
  return (
    <>
      <div class="section-toolbar">
        <Button variant="primary" small onClick={() => setOpened({ kind: "create" })} {...writeProps}>
          <PlusIcon /> New rule
        </Button>
      </div>
      {blocked && <p id={blockedNoteId} class="findings-note">{blocked}</p>}
      <FormError error={toggle.error} />
      {rules.length === 0 ? (
        <EmptyState icon={<BellIcon size={20} />} title="No rules yet">
          A rule watches an event's volume, the conversion between two events, a metric or ingestion warnings, and raises a finding when it moves away from its usual level.
        </EmptyState>
      ) : (
        <section class="card table-card findings-table" aria-label="Rules">
          <DataTable<RuleDto>
            caption="Rules"
            columns={[
              {
                label: "Rule",
                cell: (rule) => (
                  <div class="rule-cell">
                    <span class="rule-name-row">
                      <a class="text-strong" href={paths.findings(project.id, { rule: rule.id })}>{rule.name}</a>
                      {rule.enabled ? <span class="badge badge-success">Enabled</span> : <span class="badge badge-warning">Disabled</span>}
                    </span>
                    <span class="rule-detail">{describeTarget(rule.target)}</span>
                  </div>
                ),
              },
              {
                label: "Raises when",
                cell: (rule) => (
                  <div class="rule-cell rule-when">
                    <span>{cadenceLabels[rule.cadence]}: {describeThresholds(rule)}</span>
                    <span class="rule-detail">
                      {severityLabels[rule.min_severity]} and above · {rule.daily_cap === null ? "the default daily cap" : `at most ${rule.daily_cap} a day`}
                    </span>
                  </div>
                ),
              },
              { label: "Sends to", cell: (rule) => (rule.destination_ids.length === 0 ? "Nowhere (listed only)" : rule.destination_ids.map(nameOf).join(", ")) },
              {
                label: "Actions",
                actions: true,
                cell: (rule) => (
                  <div class="row-actions">
                    <Button small busy={toggle.busy} onClick={() => void toggle.run(rule)} {...writeProps} aria-label={`${rule.enabled ? "Disable" : "Enable"} ${rule.name}`}>
                      {rule.enabled ? "Disable" : "Enable"}
                    </Button>
                    <Button small onClick={() => setOpened({ kind: "edit", rule })} {...writeProps} aria-label={`Edit ${rule.name}`}>Edit</Button>
                    <Button small variant="ghost" onClick={() => setOpened({ kind: "delete", rule })} {...writeProps} aria-label={`Delete ${rule.name}`}>Delete</Button>
                  </div>
                ),
              },
            ]}
            rows={rules}
            rowKey={(rule) => rule.id}
          />
        </section>
      )}
      {opened?.kind === "create" && <RuleDialog project={project} existing={null} destinations={destinations} onClose={close} onSaved={(saved) => { upsert(saved); close(); }} />}
      {opened?.kind === "edit" && <RuleDialog project={project} existing={opened.rule} destinations={destinations} onClose={close} onSaved={(saved) => { upsert(saved); close(); }} />}
      {opened?.kind === "delete" && (
        <DeleteRuleDialog
          project={project}
          rule={opened.rule}
          onClose={close}
          onDeleted={() => {
            const gone = opened.rule.id;
            setRules((current) => current.filter((item) => item.id !== gone));
            close();
          }}
        />
      )}
    </>
  );
}

function RulesContent({ project }: { project: ProjectDto }) {
  const [data, reload] = useResource(
    () => Promise.all([listRules(project.id), listDestinations(project.id)]).then(([rules, destinations]) => ({ rules: rules.rules, destinations: destinations.destinations })),
    [project.id],
  );
  return (
    <div class="page findings-page">
      <PageTitle title="Rules">What is watched, and when a finding is raised and sent.</PageTitle>
      <FindingsNav project={project} current="rules" />
      <Loaded resource={data} what="the rules" onRetry={reload}>
        {({ rules, destinations }) => <RulesView project={project} initialRules={rules} destinations={destinations} />}
      </Loaded>
    </div>
  );
}

export default function FindingRulesPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <RulesContent project={project} />}</ProjectScope>;
}
