// The part of Apache ECharts the console draws with, registered once. Loaded only through
// load-echarts.ts's dynamic import, so it is a chunk of its own that no page waits for until
// a chart is drawn (docs/console.md: about 200 KB gzipped, never in the initial bundle).
import { BarChart, LineChart, PieChart, SankeyChart } from "echarts/charts";
import { GridComponent, MarkLineComponent, TooltipComponent } from "echarts/components";
import { init, use } from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";

use([LineChart, BarChart, PieChart, SankeyChart, GridComponent, TooltipComponent, MarkLineComponent, CanvasRenderer]);

export { init };
