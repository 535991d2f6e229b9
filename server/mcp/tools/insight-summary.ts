// An insight as a list shows it: what it is and when it changed, without its query and chart
// settings (get_insight has those).
import type { insightDto } from "../../control/insights/insights.ts";

export const insightSummary = (insight: ReturnType<typeof insightDto>) => ({
  id: insight.id,
  name: insight.name,
  kind: (insight.query as { insight: { kind: string } }).insight.kind,
  description: insight.description,
  tags: insight.tags,
  favorited: insight.favorited,
  updated_at: insight.updated_at,
});
