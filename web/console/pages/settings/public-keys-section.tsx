// The project's public keys per environment: each active key to copy, with its allowed origins,
// and the ways to rotate it, revoke it or change its origins (admins and owners); revoked keys
// stay listed below with when they stopped.
import { useState } from "preact/hooks";
import { listKeys } from "../../api/console-api.ts";
import type { KeyDto, ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { KeyOriginsDialog, RevokeKeyDialog, RotateKeyDialog } from "./key-dialogs.tsx";
import { adminOnlyReason } from "./permissions.ts";
import { roleNoteId, SettingsSection } from "./settings-section.tsx";

const sectionId = "public-keys";

type OpenDialog = { kind: "rotate" | "revoke" | "origins"; key: KeyDto } | null;

const newestFirst = (a: KeyDto, b: KeyDto) => b.created_at.localeCompare(a.created_at);

interface KeyCardProps {
  project: ProjectDto;
  keyRow: KeyDto;
  label: string;
  /** When the environment has more than one active key: which this one is. */
  tag: string | null;
  blocked: string | null;
  onOpen(dialog: OpenDialog): void;
}

function KeyCard({ project, keyRow, label, tag, blocked, onOpen }: KeyCardProps) {
  const describedBy = blocked ? roleNoteId(sectionId) : undefined;
  return (
    <div class="key-card">
      {tag && <span class="badge badge-muted key-tag">{tag}</span>}
      <CodeBlock code={keyRow.key} label={label} />
      <p class="key-meta">
        Created {formatDateTime(keyRow.created_at, project.timezone)} ·{" "}
        {keyRow.allowed_origins.length === 0 ? "any origin may send with it" : `allowed origins: ${keyRow.allowed_origins.join(", ")}`}
      </p>
      {!keyRow.registry_synced && <p class="key-warning">The region has not taken this key's latest state yet; it is sent again within a minute.</p>}
      <div class="key-actions">
        <Button small onClick={() => onOpen({ kind: "rotate", key: keyRow })} disabled={blocked !== null} aria-describedby={describedBy}>Rotate</Button>
        <Button small onClick={() => onOpen({ kind: "origins", key: keyRow })} disabled={blocked !== null} aria-describedby={describedBy}>Edit allowed origins</Button>
        <Button small variant="ghost" onClick={() => onOpen({ kind: "revoke", key: keyRow })} disabled={blocked !== null} aria-describedby={describedBy}>Revoke</Button>
      </div>
    </div>
  );
}

function EnvironmentKeys({ project, environment, keys, blocked, onOpen }: { project: ProjectDto; environment: string; keys: KeyDto[]; blocked: string | null; onOpen(dialog: OpenDialog): void }) {
  const active = keys.filter((key) => key.revoked_at === null).sort(newestFirst);
  const revoked = keys.filter((key) => key.revoked_at !== null).sort(newestFirst);
  return (
    <div class="key-environment" aria-label={`${environment} keys`} role="group">
      <h3 class="key-environment-name">{environment}</h3>
      {active.length === 0 && <p class="key-warning">No active key: ingest refuses this environment's events.</p>}
      {active.map((key, index) => (
        <KeyCard
          key={key.id}
          project={project}
          keyRow={key}
          label={active.length === 1 ? `${environment} public key` : index === 0 ? `${environment} public key (newest)` : `${environment} public key (older)`}
          tag={active.length === 1 ? null : index === 0 ? "Newest key" : "Older key, still accepted until revoked"}
          blocked={blocked}
          onOpen={onOpen}
        />
      ))}
      {revoked.length > 0 && (
        <details class="revoked-keys">
          <summary>{revoked.length === 1 ? "1 revoked key" : `${revoked.length} revoked keys`}</summary>
          <ul>
            {revoked.map((key) => (
              <li key={key.id}>
                <code class="inline-key">{key.key}</code> revoked {formatDateTime(key.revoked_at!, project.timezone)}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function KeysView({ project, initial }: { project: ProjectDto; initial: KeyDto[] }) {
  const blocked = adminOnlyReason(project.role, "rotate or revoke keys or change their origins");
  const [keys, setKeys] = useState(initial);
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const replace = (...changed: KeyDto[]) =>
    setKeys((current) => [...current.filter((key) => !changed.some((other) => other.id === key.id)), ...changed]);
  const done = (message: string, ...changed: KeyDto[]) => {
    replace(...changed);
    setNotice(message);
    setDialog(null);
  };
  const close = () => setDialog(null);
  const activeIn = (environment: string) => keys.filter((key) => key.environment === environment && key.revoked_at === null).length;
  return (
    <>
      {notice && <Alert tone="success">{notice}</Alert>}
      {project.environments.map(({ name }) => (
        <EnvironmentKeys key={name} project={project} environment={name} keys={keys.filter((key) => key.environment === name)} blocked={blocked} onOpen={(open) => { setNotice(null); setDialog(open); }} />
      ))}
      {dialog?.kind === "rotate" && (
        <RotateKeyDialog
          projectId={project.id}
          keyRow={dialog.key}
          onClose={close}
          onRotated={({ created, revoked }, keptOld) =>
            done(
              keptOld
                ? `The ${created.environment} key is rotated. The old key keeps working until you revoke it.`
                : `The ${created.environment} key is rotated, and the old key is revoked.`,
              created,
              revoked,
            )}
        />
      )}
      {dialog?.kind === "revoke" && (
        <RevokeKeyDialog
          projectId={project.id}
          keyRow={dialog.key}
          lastActive={activeIn(dialog.key.environment) === 1}
          onClose={close}
          onRevoked={(key) => done(`The ${key.environment} key is revoked.`, key)}
        />
      )}
      {dialog?.kind === "origins" && (
        <KeyOriginsDialog projectId={project.id} keyRow={dialog.key} onClose={close} onSaved={(key) => done(`The ${key.environment} key's allowed origins are saved.`, key)} />
      )}
    </>
  );
}

export function PublicKeysSection({ project }: { project: ProjectDto }) {
  const [keys, reload] = useResource(() => listKeys(project.id), [project.id]);
  return (
    <SettingsSection
      id={sectionId}
      title="Public keys"
      description="SDKs send events with an environment's public key. It can only send, so it is safe in browser and app code. Rotate a key to replace it; revoke one to refuse its events."
      blockedReason={adminOnlyReason(project.role, "rotate or revoke keys or change their origins")}
    >
      {keys.status === "loading" && <LoadingState label="Loading the keys…" />}
      {keys.status === "failed" && <ErrorState title="The keys could not be loaded" error={keys.error} onRetry={reload} />}
      {keys.status === "ready" && <KeysView project={project} initial={keys.data.keys} />}
    </SettingsSection>
  );
}
