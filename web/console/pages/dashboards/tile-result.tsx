// An insight tile's answer: the insight's chart, drawn compact as its own viz says, or a click
// away its numbers (tile-body.tsx), for a person who wants the figures or cannot see a chart.
import { useState } from "preact/hooks";
import type { InsightDto } from "../../api/insight-types.ts";
import type { QueryAnswer, QueryIrDocument } from "../../api/query-types.ts";
import type { ProjectDto } from "../../api/types.ts";
import { InsightResultView } from "../../charts/insight-result.tsx";
import { formatRelative } from "../../format/date-time.ts";
import { TileBody } from "./tile-body.tsx";

interface TileResultProps {
  project: ProjectDto;
  insight: InsightDto;
  /** The document the tile ran: the insight's, with the dashboard's date range and filters applied. */
  query: QueryIrDocument;
  response: QueryAnswer;
}

export function TileResult({ project, insight, query, response }: TileResultProps) {
  const [numbers, setNumbers] = useState(false);
  return (
    <div class="tile-result">
      {numbers ? (
        <TileBody kind={insight.query.insight.kind} query={query} result={response.result} timeZone={project.timezone} currency={project.currency} />
      ) : (
        <div class="tile-chart">
          <InsightResultView query={query} result={response} viz={insight.viz} timeZone={project.timezone} currency={project.currency} view="chart" compact />
        </div>
      )}
      <p class="tile-computed">
        <time dateTime={response.computed_at}>{`Computed ${formatRelative(response.computed_at)}`}</time>
        <button type="button" class="tile-view-switch" aria-pressed={numbers} onClick={() => setNumbers(!numbers)}>
          {numbers ? "Show the chart" : "Show the numbers"}
        </button>
      </p>
    </div>
  );
}
