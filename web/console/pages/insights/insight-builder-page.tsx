// /projects/{id}/insights/new and /projects/{id}/insights/{insightId}: one builder for every
// kind. Its state is the URL's (url-state.ts), so a link shares it and a reload restores it;
// the query runs on the region as the person edits.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { isNotFound } from "../../api/http.ts";
import { getInsight, listCohorts, listEventNames, listPropertyKeys } from "../../api/insights.ts";
import type { InsightDto } from "../../api/insight-types.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { LinkButton } from "../../ui/button.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { describeError } from "../../api/errors.ts";
import { BuilderForm, type BuilderChoices } from "./builder-form.tsx";
import { InsightHeader } from "./insight-header.tsx";
import { awaitingInput } from "./query-edits.ts";
import { ResultPanel } from "./result-panel.tsx";
import { useChartAnnotations, useInsightQuery } from "./use-insight-query.ts";
import { decodeBuilderState, encodeBuilderState, newInsightState, type BuilderState } from "./url-state.ts";

const savedState = (insight: InsightDto): BuilderState => ({ query: insight.query, viz: insight.viz, view: "chart" });
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const searchOf = (url: string) => (url.includes("?") ? url.slice(url.indexOf("?")) : "");

/** What the pickers offer: stored event names and property keys, and the project's cohorts. */
async function loadChoices(project: ProjectDto, region: ReturnType<typeof useRegion>): Promise<BuilderChoices> {
  const cohorts = listCohorts(project.id).then(({ cohorts: list }) => list);
  const { events } = await listEventNames(region.tokens);
  const { properties } = await listPropertyKeys(region.tokens);
  return { events, properties, cohorts: await cohorts };
}

function Builder({ project, initial }: { project: ProjectDto; initial: InsightDto | null }) {
  const location = useLocation();
  const region = useRegion(project);
  const [saved, setSaved] = useState(initial);
  const fallback = saved ? savedState(saved) : newInsightState();
  const [decoded] = useState(() => decodeBuilderState(searchOf(location.url), fallback));
  const [state, setState] = useState<BuilderState>(decoded.state);
  const [showSql, setShowSql] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const written = useRef(location.url);
  const [choices, reloadChoices] = useResource(() => loadChoices(project, region), [project.id, region.environment]);
  const waitingFor = awaitingInput(state.query);
  const run = useInsightQuery(region.tokens, state.query, showSql, attempt, waitingFor !== null);
  const annotations = useChartAnnotations(project.id, run.answer);

  // Back and forward within the builder's own history entries bring their state back.
  useEffect(() => {
    if (location.url === written.current) return;
    written.current = location.url;
    setState(decodeBuilderState(searchOf(location.url), fallback).state);
  }, [location.url]);

  const change = (next: BuilderState) => {
    setState(next);
    const url = `${location.path}${encodeBuilderState(next)}`;
    written.current = url;
    history.replaceState(history.state, "", url);
  };

  const onSaved = (insight: InsightDto, created: boolean) => {
    setSaved(insight);
    const url = paths.insight(project.id, insight.id);
    if (created) location.route(url, true);
    else if (sameJson(insight.query, state.query) && sameJson(insight.viz, state.viz)) {
      const clean = `${url}${state.view === "table" ? "?view=table" : ""}`;
      written.current = clean;
      history.replaceState(history.state, "", clean);
    }
  };

  const dirty = saved !== null && !(sameJson(saved.query, state.query) && sameJson(saved.viz, state.viz));
  return (
    <div class="page insight-builder">
      <InsightHeader projectId={project.id} saved={saved} query={state.query} viz={state.viz} dirty={dirty} onSaved={onSaved} />
      {decoded.problem && <Alert tone="error">{decoded.problem}</Alert>}
      {choices.status === "failed" && (
        <Alert tone="error">
          The event names could not be loaded: {describeError(choices.error)}{" "}
          <button type="button" class="link-button" onClick={reloadChoices}>Try again</button>
        </Alert>
      )}
      <div class="builder-layout">
        <BuilderForm
          state={state}
          choices={choices.status === "ready" ? choices.data : null}
          problemSource={run.error}
          projectCurrency={project.currency}
          onChange={change}
        />
        <ResultPanel
          project={project}
          kind={state.query.insight.kind}
          viz={state.viz}
          view={state.view}
          run={run}
          waitingFor={waitingFor}
          annotations={annotations}
          showSql={showSql}
          onViz={(viz) => change({ ...state, viz })}
          onView={(view) => change({ ...state, view })}
          onShowSql={setShowSql}
          onRetry={() => setAttempt((count) => count + 1)}
        />
      </div>
    </div>
  );
}

function SavedBuilder({ project, insightId }: { project: ProjectDto; insightId: string }) {
  const [insight, reload] = useResource(() => getInsight(project.id, insightId), [project.id, insightId]);
  if (insight.status === "loading") return <LoadingState label="Loading the insight…" />;
  if (insight.status === "failed") {
    return isNotFound(insight.error) ? (
      <EmptyState icon={<SearchOffIcon size={20} />} title="Insight not found" action={<LinkButton variant="primary" href={paths.insights(project.id)}>Go to insights</LinkButton>}>
        It may have been deleted.
      </EmptyState>
    ) : (
      <ErrorState title="The insight could not be loaded" error={insight.error} onRetry={reload} />
    );
  }
  return <Builder key={insight.data.id} project={project} initial={insight.data} />;
}

export default function InsightBuilderPage() {
  const { params } = useRoute();
  const insightId = params.insightId;
  return (
    <ProjectScope projectId={params.projectId!}>
      {(project) => (insightId ? <SavedBuilder project={project} insightId={insightId} /> : <Builder key="new" project={project} initial={null} />)}
    </ProjectScope>
  );
}
