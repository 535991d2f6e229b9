// ECharts arrives on first use: one dynamic import shared by every chart on the page. A
// failed load is forgotten, so the next chart tries again.
type EchartsRuntime = typeof import("./echarts-runtime.ts");

let loading: Promise<EchartsRuntime> | null = null;

export function loadEcharts(): Promise<EchartsRuntime> {
  loading ??= import("./echarts-runtime.ts").catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}
