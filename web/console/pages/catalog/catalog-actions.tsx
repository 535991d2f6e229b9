// The tracking plan's actions beside its list: merge what the region has seen into the plan
// (for the environment the sidebar shows), and download the generated code as a file.
import { useState } from "preact/hooks";
import { fetchCodegen, syncCatalog, type CatalogSyncResponse, type CodegenFormat } from "../../api/catalog.ts";
import { describeError } from "../../api/errors.ts";
import { formatNumber } from "../../format/numbers.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DownloadIcon, RefreshIcon } from "../../ui/icons.tsx";
import { saveFile } from "../../ui/save-file.ts";

type Busy = null | "sync" | CodegenFormat;
type Outcome = null | { synced: CatalogSyncResponse } | { failed: string };

const names = (list: string[]) => list.map((name, index) => <span key={name}>{index > 0 && ", "}<code>{name}</code></span>);

function SyncSummary({ synced }: { synced: CatalogSyncResponse }) {
  return (
    <Alert tone="success">
      <p>
        Synced with {synced.environment}: {formatNumber(synced.discovered)} {synced.discovered === 1 ? "event" : "events"} seen in the last 30 days, {formatNumber(synced.updated)} updated.
      </p>
      {synced.implemented.length > 0 && <p>Now implemented: {names(synced.implemented)}.</p>}
      {synced.unplanned.length > 0 && <p>New, outside the plan: {names(synced.unplanned)}.</p>}
    </Alert>
  );
}

export function CatalogActions({ projectId, environment, canWrite, onSynced }: { projectId: string; environment: string; canWrite: boolean; onSynced(): void }) {
  const [busy, setBusy] = useState<Busy>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const sync = async () => {
    setBusy("sync");
    setOutcome(null);
    try {
      setOutcome({ synced: await syncCatalog(projectId, environment) });
      onSynced();
    } catch (error) {
      setOutcome({ failed: `The sync did not run: ${describeError(error)}` });
    } finally {
      setBusy(null);
    }
  };

  const download = async (format: CodegenFormat) => {
    setBusy(format);
    setOutcome(null);
    try {
      const { body, fileName } = await fetchCodegen(projectId, format);
      saveFile(body, fileName);
    } catch (error) {
      setOutcome({ failed: `The code could not be generated: ${describeError(error)}` });
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <div class="toolbar">
        <div class="toolbar-actions">
          {canWrite && (
            <Button variant="primary" busy={busy === "sync"} disabled={busy !== null} onClick={sync}>
              <RefreshIcon /> Sync from {environment}
            </Button>
          )}
        </div>
        <div class="toolbar-actions">
          <Button busy={busy === "typescript"} disabled={busy !== null} onClick={() => download("typescript")}><DownloadIcon /> TypeScript (.d.ts)</Button>
          <Button busy={busy === "json"} disabled={busy !== null} onClick={() => download("json")}><DownloadIcon /> JSON</Button>
        </div>
      </div>
      {outcome && "synced" in outcome && <SyncSummary synced={outcome.synced} />}
      {outcome && "failed" in outcome && <Alert tone="error">{outcome.failed}</Alert>}
    </>
  );
}
