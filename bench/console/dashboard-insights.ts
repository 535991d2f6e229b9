// The twelve saved insights of the benchmark's dashboard: every insight kind, over the last 30
// days of the product dataset (test/helpers/product-dataset.ts), laid out two per row.

const range = { from: "-30d" };
const ir = (insight: Record<string, unknown>) => ({ ir_version: 1, date_range: range, insight });

export const dashboardInsights: { name: string; query: object }[] = [
  { name: "Pageviews", query: ir({ kind: "trends", interval: "day", series: [{ event: "$pageview", math: "total" }] }) },
  { name: "Daily active users", query: ir({ kind: "trends", interval: "day", series: [{ event: "$pageview", math: "unique_persons" }] }) },
  { name: "Pageviews by browser", query: ir({ kind: "trends", interval: "day", series: [{ event: "$pageview" }], breakdown: { type: "event", property: "$browser", limit: 5 } }) },
  { name: "Sign-ups by source", query: ir({ kind: "trends", interval: "week", series: [{ event: "signed_up" }], breakdown: { type: "event", property: "utm_source", limit: 5 } }) },
  {
    name: "Trial to purchase funnel",
    query: ir({ kind: "funnel", series: [{ event: "$pageview" }, { event: "signed_up" }, { event: "started_trial" }, { event: "purchase_completed" }], funnel_window: { value: 14, unit: "day" } }),
  },
  { name: "Weekly retention", query: ir({ kind: "retention", interval: "week", periods: 5, series: [{ event: "signed_up" }, { event: "$pageview" }] }) },
  { name: "Lifecycle", query: ir({ kind: "lifecycle", interval: "day", series: [{ event: "$pageview" }] }) },
  { name: "Insight creation stickiness", query: ir({ kind: "stickiness", interval: "day", series: [{ event: "created_insight" }] }) },
  { name: "Revenue", query: ir({ kind: "revenue", interval: "day", series: [{ event: "purchase_completed" }] }) },
  { name: "Paths from pricing", query: ir({ kind: "paths", depth: 4, edges: 30, start_point: "/pricing" }) },
  {
    name: "Feature usage",
    query: ir({ kind: "trends", interval: "day", series: ["created_dashboard", "invited_teammate", "exported_report", "created_insight"].map((event) => ({ event })) }),
  },
  { name: "Buyers by operating system", query: ir({ kind: "trends", interval: "week", series: [{ event: "purchase_completed", math: "unique_persons" }], breakdown: { type: "event", property: "$os", limit: 5 } }) },
];

/** Two tiles per row of the 12-column grid. */
export const tileLayout = (index: number) => ({ x: (index % 2) * 6, y: Math.floor(index / 2) * 5, w: 6, h: 5 });
