// Runs the builder's query on the region as the person edits: a moment after the last change
// (so typing a name runs one query, not one per key), keeping the last answer on screen while
// the next one is computed. Answers to a query that has since changed are dropped.
import { useEffect, useState } from "preact/hooks";
import { listAnnotations, runQuery } from "../../api/insights.ts";
import type { AnnotationDto } from "../../api/insight-types.ts";
import type { QueryAnswer, QueryIrDocument } from "../../api/query-types.ts";
import type { RegionTokenSource } from "../../api/region-token.ts";
import { annotationWindow } from "../../charts/annotation-marks.ts";

/** Quiet time after an edit before the query runs. */
export const runDebounceMs = 400;

export interface QueryRun {
  /** The newest answer, possibly for an earlier version of the query while `running`. */
  answer: QueryAnswer | null;
  /** The query whose answer `answer` is. */
  answered: QueryIrDocument | null;
  running: boolean;
  error: unknown;
}

/** `waiting`: the query is unfinished (query-edits.ts, awaitingInput) and is not sent. */
export function useInsightQuery(tokens: RegionTokenSource, query: QueryIrDocument, includeSql: boolean, attempt: number, waiting: boolean): QueryRun {
  const [run, setRun] = useState<QueryRun>({ answer: null, answered: null, running: !waiting, error: null });
  const text = JSON.stringify(query);
  useEffect(() => {
    if (waiting) {
      setRun((previous) => ({ ...previous, running: false, error: null }));
      return;
    }
    let current = true;
    setRun((previous) => ({ ...previous, running: true }));
    const timer = setTimeout(() => {
      runQuery(tokens, query, includeSql).then(
        (answer) => current && setRun({ answer, answered: query, running: false, error: null }),
        (error: unknown) => current && setRun((previous) => ({ ...previous, running: false, error })),
      );
    }, runDebounceMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
    // `query` is read through its JSON: an equal document is the same query.
  }, [tokens, text, includeSql, attempt, waiting]);
  return run;
}

/** The project's annotations over a time result's buckets, for the chart to draw. */
export function useChartAnnotations(projectId: string, answer: QueryAnswer | null): AnnotationDto[] {
  const [annotations, setAnnotations] = useState<AnnotationDto[]>([]);
  const result = answer?.result;
  const span = result && "buckets" in result ? annotationWindow(result.buckets, result.interval) : null;
  const key = span ? `${span.from}/${span.to}` : "";
  useEffect(() => {
    if (!span) return;
    let current = true;
    // Annotations are an aid: a chart without them is still right, so a failure leaves none.
    listAnnotations(projectId, span).then(
      ({ annotations: loaded }) => current && setAnnotations(loaded),
      () => current && setAnnotations([]),
    );
    return () => {
      current = false;
    };
  }, [projectId, key]);
  return annotations;
}
