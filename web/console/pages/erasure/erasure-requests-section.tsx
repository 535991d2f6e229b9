// The project's erasure requests on its settings page (admins and owners: scope
// persons.erase), newest first: status and progress while open, and each completed one's
// certificate. Requests are made from a person's profile ("Erase this person") or by /v1.
import { useState } from "preact/hooks";
import { listErasures, type ErasureRequest } from "../../api/erasure-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { LockIcon } from "../../ui/icons.tsx";
import { formatDateTime } from "../../format/date-time.ts";
import { adminOnlyReason } from "../settings/permissions.ts";
import { SettingsSection } from "../settings/settings-section.tsx";
import { CertificateView } from "./certificate-view.tsx";
import { ErasureStatus } from "./erasure-status.tsx";
import { useErasureProgress } from "./use-erasure-progress.ts";

const sectionId = "erasure-requests";

/** A row's status follows its request while it is open. */
function LiveStatus({ request }: { request: ErasureRequest }) {
  return <ErasureStatus request={useErasureProgress(request).request} />;
}

function Requests({ project }: { project: ProjectDto }) {
  // The console API pages by offset; the list hook carries it as its cursor.
  const controls = usePagedList(
    (cursor) => listErasures(project.id, cursor === null ? 0 : Number(cursor)).then((page) => ({ results: page.erasure_requests, next_cursor: page.next_offset === null ? null : String(page.next_offset) })),
    [project.id],
  );
  const [viewing, setViewing] = useState<ErasureRequest | null>(null);
  const { list } = controls;
  if (list.status === "loading") return <LoadingState label="Loading the erasure requests…" />;
  if (list.status === "failed") return <ErrorState title="The erasure requests could not be loaded" error={list.error} onRetry={controls.reload} />;
  const at = (iso: string | null) => (iso ? <time dateTime={iso}>{formatDateTime(iso, project.timezone)}</time> : "—");
  return (
    <>
      <DataTable
        caption="Erasure requests, newest first"
        rows={list.items}
        rowKey={(request) => request.id}
        empty={
          <EmptyState icon={<LockIcon size={20} />} title="No erasure requests">
            Erase a person from their profile, or with POST /v1/projects/{project.id}/erasure-requests.
          </EmptyState>
        }
        columns={[
          { label: "Requested", cell: (request) => at(request.created_at) },
          { label: "Environment", cell: (request) => request.environment },
          { label: "Persons", cell: (request) => (request.persons_erased === null ? `${request.subject_count} named` : `${request.persons_erased} erased`) },
          { label: "Status", cell: (request) => <LiveStatus key={request.id} request={request} /> },
          { label: "Completed", cell: (request) => at(request.completed_at) },
          {
            label: "Actions",
            actions: true,
            cell: (request) =>
              request.certificate_url !== null && (
                <Button small variant="ghost" onClick={() => setViewing(request)} aria-label={`Certificate of request ${request.id}`}>
                  Certificate
                </Button>
              ),
          },
        ]}
      />
      <LoadMore controls={controls} />
      {viewing && (
        <Dialog open wide title="Erasure certificate" onClose={() => setViewing(null)} footer={<Button onClick={() => setViewing(null)}>Close</Button>}>
          <CertificateView project={project} requestId={viewing.id} />
        </Dialog>
      )}
    </>
  );
}

export function ErasureRequestsSection({ project }: { project: ProjectDto }) {
  const blocked = adminOnlyReason(project.role, "see and make erasure requests");
  return (
    <SettingsSection
      id={sectionId}
      title="Erasure requests"
      description="Personal data erased on request (GDPR Art. 17), each with a signed certificate anyone can verify against this service's published keys."
      blockedReason={blocked}
    >
      {blocked === null && <Requests project={project} />}
    </SettingsSection>
  );
}
