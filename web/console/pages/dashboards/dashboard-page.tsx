// "/projects/{id}/dashboards/{dashboardId}": a dashboard's tiles on its grid, each loading its
// own numbers straight from the region with the console's region token (results never pass
// through the control plane); its date range and filters, which override the tiles'; and
// changing it: tiles added, moved, resized, edited and removed, its name, description and tags,
// making it the project's home dashboard, deleting it.
import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { addTile, deleteDashboard, getDashboard, removeTile, saveLayout, updateDashboard, updateTextTile } from "../../api/dashboards-api.ts";
import type { DashboardChanges, DashboardDto, DashboardTileDto } from "../../api/dashboard-types.ts";
import type { InsightDto } from "../../api/insight-types.ts";
import { describeError } from "../../api/errors.ts";
import { isNotFound } from "../../api/http.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { DashboardIcon, HomeIcon, PencilIcon, PlusIcon, RefreshIcon, SearchOffIcon, TrashIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { AddInsightDialog, DashboardDetailsDialog, TextTileDialog, type DashboardDetails } from "./dashboard-dialogs.tsx";
import { DashboardGrid } from "./dashboard-grid.tsx";
import { DashboardOverrides } from "./dashboard-overrides.tsx";
import { gridTile } from "./dashboard-tile.tsx";
import { Tags } from "./tags.tsx";
import { useLayoutSaver } from "./use-layout-saver.ts";
import { useTileResults } from "./use-tile-results.ts";

type OpenDialog =
  | { kind: "details" }
  | { kind: "insight" }
  | { kind: "text"; tile?: DashboardTileDto }
  | { kind: "remove"; tile: DashboardTileDto }
  | { kind: "delete" };

function Dashboard({ project, loaded }: { project: ProjectDto; loaded: DashboardDto }) {
  const [dashboard, setDashboard] = useState(loaded);
  const [refreshes, setRefreshes] = useState(0);
  const [dialog, setDialog] = useState<OpenDialog | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [focusTile, setFocusTile] = useState<string | null>(null);
  const region = useRegion(project);
  const { route } = useLocation();
  const editable = project.role !== "viewer";
  const { results, retry } = useTileResults(dashboard.tiles, region, refreshes);
  // A save's answer brings the places the API stores; tiles added or removed meanwhile stay as they are here.
  const layoutSaved = (answer: DashboardDto) => {
    const places = new Map(answer.tiles.map((tile) => [tile.id, tile.layout]));
    setDashboard((current) => ({ ...current, updated_at: answer.updated_at, tiles: current.tiles.map((tile) => ({ ...tile, layout: places.get(tile.id) ?? tile.layout })) }));
  };
  const layout = useLayoutSaver(dashboard.tiles, (moved) => saveLayout(project.id, dashboard.id, moved), layoutSaved);

  useEffect(() => {
    if (!focusTile) return;
    const element = document.querySelector<HTMLElement>(`[data-tile-id="${CSS.escape(focusTile)}"]`);
    element?.focus();
    element?.scrollIntoView({ block: "nearest" });
    setFocusTile(null);
  }, [focusTile]);

  const close = () => setDialog(null);
  /** A change from a button: its refusal is shown above the tiles. */
  const act = async (change: () => Promise<void>) => {
    setBusy(true);
    setActionError(null);
    try {
      await change();
    } catch (error) {
      setActionError(error);
    } finally {
      setBusy(false);
    }
  };
  const update = async (changes: DashboardChanges) => setDashboard(await updateDashboard(project.id, dashboard.id, changes));
  const added = (tile: DashboardTileDto) => {
    setDashboard((current) => ({ ...current, tiles: [...current.tiles, tile] }));
    setFocusTile(tile.id);
    close();
  };

  const addInsight = async (insight: InsightDto) => added(await addTile(project.id, dashboard.id, { kind: "insight", insight_id: insight.id }));
  const saveText = async (body: string) => {
    const editing = dialog?.kind === "text" ? dialog.tile : undefined;
    if (!editing) return added(await addTile(project.id, dashboard.id, { kind: "text", body }));
    const saved = await updateTextTile(project.id, dashboard.id, editing.id, body);
    setDashboard((current) => ({ ...current, tiles: current.tiles.map((tile) => (tile.id === saved.id ? saved : tile)) }));
    close();
  };
  const saveDetails = async ({ name, description, tags }: DashboardDetails) => {
    await update({ name, description, tags });
    close();
  };
  const confirmRemove = (tile: DashboardTileDto) =>
    act(async () => {
      await removeTile(project.id, dashboard.id, tile.id);
      setDashboard((current) => ({ ...current, tiles: current.tiles.filter(({ id }) => id !== tile.id) }));
      close();
    });
  const confirmDelete = () =>
    act(async () => {
      await deleteDashboard(project.id, dashboard.id);
      route(paths.dashboards(project.id));
    });

  const actions = { editable, onEditText: (tile: DashboardTileDto) => setDialog({ kind: "text", tile }), onRemove: (tile: DashboardTileDto) => setDialog({ kind: "remove", tile }), onRetry: (tile: DashboardTileDto) => retry(tile.id) };
  const tiles = dashboard.tiles.map((tile) => gridTile(project, tile, results[tile.id], actions));
  const removing = dialog?.kind === "remove" ? dialog.tile : null;

  return (
    <div class="page page-dashboard">
      <nav class="breadcrumbs" aria-label="Breadcrumbs">
        <a href={paths.dashboards(project.id)}>Dashboards</a>
      </nav>
      <div class="page-heading">
        <PageTitle title={dashboard.name}>{dashboard.description}</PageTitle>
        <div class="page-actions">
          {dashboard.is_home && <span class="badge badge-accent home-badge"><HomeIcon size={12} /> Home dashboard</span>}
          <Button onClick={() => setRefreshes((count) => count + 1)} disabled={!dashboard.tiles.some((tile) => tile.request)}><RefreshIcon /> Refresh</Button>
          {editable && (
            <>
              <Button variant="primary" onClick={() => setDialog({ kind: "insight" })}><PlusIcon /> Add insight</Button>
              <Button onClick={() => setDialog({ kind: "text" })}><PlusIcon /> Add text</Button>
            </>
          )}
        </div>
      </div>
      {editable && (
        <div class="dashboard-toolbar">
          {!dashboard.is_home && <Button small variant="ghost" busy={busy} onClick={() => act(() => update({ is_home: true }))}><HomeIcon /> Set as home</Button>}
          <Button small variant="ghost" onClick={() => setDialog({ kind: "details" })}><PencilIcon /> Edit details</Button>
          <Button small variant="ghost" onClick={() => setDialog({ kind: "delete" })}><TrashIcon /> Delete</Button>
        </div>
      )}
      <Tags tags={dashboard.tags} />
      <DashboardOverrides dashboard={dashboard} editable={editable} onChange={update} />
      {actionError !== null && dialog === null && <Alert tone="error">{describeError(actionError)}</Alert>}
      {layout.error !== null && (
        <Alert tone="error">{`The new layout could not be saved, so the tiles are back where they were. ${describeError(layout.error)}`}</Alert>
      )}
      {tiles.length === 0 ? (
        <EmptyState
          icon={<DashboardIcon size={20} />}
          title="This dashboard has no tiles yet"
          action={
            editable && (
              <>
                <Button variant="primary" onClick={() => setDialog({ kind: "insight" })}><PlusIcon /> Add insight</Button>
                <Button onClick={() => setDialog({ kind: "text" })}><PlusIcon /> Add text</Button>
              </>
            )
          }
        >
          Add saved insights to see their numbers side by side, and text to explain them.
        </EmptyState>
      ) : (
        <DashboardGrid tiles={tiles} layouts={layout.layouts} saving={layout.saving} editable={editable} onCommit={layout.commit} />
      )}

      <AddInsightDialog open={dialog?.kind === "insight"} projectId={project.id} onClose={close} onChoose={addInsight} />
      <TextTileDialog key={dialog?.kind === "text" ? (dialog.tile?.id ?? "new") : "closed"} open={dialog?.kind === "text"} initial={dialog?.kind === "text" ? (dialog.tile?.body ?? undefined) : undefined} onClose={close} onSubmit={saveText} />
      <DashboardDetailsDialog
        open={dialog?.kind === "details"}
        title="Edit dashboard"
        submitLabel="Save"
        initial={{ name: dashboard.name, description: dashboard.description, tags: dashboard.tags }}
        onClose={close}
        onSubmit={saveDetails}
      />
      <ConfirmDialog open={removing !== null} title="Remove this tile?" confirmLabel="Remove tile" danger busy={busy} onConfirm={() => removing && confirmRemove(removing)} onClose={close}>
        {actionError !== null && <Alert tone="error">{describeError(actionError)}</Alert>}
        <p>
          {removing?.insight ? (
            <>
              <span class="text-strong">{removing.insight.name}</span> leaves this dashboard; the insight stays saved.
            </>
          ) : (
            "The text will be deleted."
          )}
        </p>
      </ConfirmDialog>
      <ConfirmDialog open={dialog?.kind === "delete"} title="Delete this dashboard?" confirmLabel="Delete dashboard" danger busy={busy} onConfirm={confirmDelete} onClose={close}>
        {actionError !== null && <Alert tone="error">{describeError(actionError)}</Alert>}
        <p>
          <span class="text-strong">{dashboard.name}</span> and its tiles will be deleted. The saved insights it shows are kept.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function DashboardContent({ project, dashboardId }: { project: ProjectDto; dashboardId: string }) {
  const [dashboard, reload] = useResource(() => getDashboard(project.id, dashboardId), [project.id, dashboardId]);
  if (dashboard.status === "loading") return <LoadingState label="Loading the dashboard…" />;
  if (dashboard.status === "failed") {
    return isNotFound(dashboard.error) ? (
      <EmptyState icon={<SearchOffIcon size={20} />} title="Dashboard not found" action={<LinkButton href={paths.dashboards(project.id)} variant="primary">See all dashboards</LinkButton>}>
        It may have been deleted.
      </EmptyState>
    ) : (
      <ErrorState title="The dashboard could not be loaded" error={dashboard.error} onRetry={reload} />
    );
  }
  return <Dashboard key={dashboard.data.id} project={project} loaded={dashboard.data} />;
}

export default function DashboardPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <DashboardContent project={project} dashboardId={params.dashboardId!} />}</ProjectScope>;
}
