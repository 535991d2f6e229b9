// Paths as a Sankey diagram: a node per step and value (the same page at step 1 and at step 3
// are two nodes, so the graph has no cycles), links weighted by persons.
import type { PathsResult } from "../api/query-types.ts";
import { formatNumber } from "../format/numbers.ts";
import type { ChartTheme } from "./chart-theme.ts";
import { baseOption, type ChartOption } from "./chart-option.ts";
import { tooltipBase, tooltipContent } from "./tooltip.ts";

interface PathNode {
  /** Unique per step and value; never shown. */
  name: string;
  step: number;
  value: string;
}

const nodeName = (step: number, value: string) => `${step}\u0000${value}`;

export function pathNodes(result: PathsResult): Map<string, PathNode> {
  const nodes = new Map<string, PathNode>();
  for (const edge of result.edges) {
    for (const [step, value] of [[edge.source_step, edge.source], [edge.target_step, edge.target]] as const) {
      const name = nodeName(step, value);
      if (!nodes.has(name)) nodes.set(name, { name, step, value });
    }
  }
  return nodes;
}

export const stepCaption = (step: number, value: string) => `Step ${step + 1}: ${value}`;

export function sankeyChartOption(result: PathsResult, theme: ChartTheme, compact: boolean): ChartOption {
  const nodes = pathNodes(result);
  return {
    ...baseOption(theme, true),
    tooltip: {
      ...tooltipBase(theme),
      trigger: "item",
      formatter: (params) => {
        const item = Array.isArray(params) ? params[0]! : params;
        if (item.dataType === "edge") {
          const edge = result.edges[item.dataIndex]!;
          return tooltipContent(`${stepCaption(edge.source_step, edge.source)} → ${stepCaption(edge.target_step, edge.target)}`, [{ name: "Persons", value: formatNumber(edge.persons) }]);
        }
        const node = nodes.get(item.name);
        return tooltipContent(node ? stepCaption(node.step, node.value) : "", [{ name: "Persons", value: typeof item.value === "number" ? formatNumber(item.value) : "–" }]);
      },
    },
    series: [
      {
        type: "sankey",
        left: compact ? 8 : 16,
        right: compact ? 80 : 160,
        top: compact ? 8 : 16,
        bottom: compact ? 8 : 16,
        nodeGap: 12,
        emphasis: { focus: "adjacency" },
        lineStyle: { color: "gradient", opacity: 0.35 },
        label: { color: theme.text, show: !compact, formatter: ({ name }: { name: string }) => nodes.get(name)?.value ?? "" },
        data: [...nodes.values()].map(({ name, step }) => ({ name, depth: step })),
        links: result.edges.map((edge) => ({ source: nodeName(edge.source_step, edge.source), target: nodeName(edge.target_step, edge.target), value: edge.persons })),
      },
    ],
  };
}
