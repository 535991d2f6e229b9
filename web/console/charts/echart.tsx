// One ECharts canvas: loads ECharts on first use, draws `option` (whole, each time it
// changes), follows its container's size and is disposed with the component.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ChartOption } from "./chart-option.ts";
import { loadEcharts } from "./load-echarts.ts";
import { describeError } from "../api/errors.ts";
import { Spinner } from "../ui/states.tsx";

type Chart = ReturnType<Awaited<ReturnType<typeof loadEcharts>>["init"]>;

type Load = { status: "loading" } | { status: "ready" } | { status: "failed"; error: unknown };

export function EChart({ option, label }: { option: ChartOption; label: string }) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<Chart | null>(null);
  const [load, setLoad] = useState<Load>({ status: "loading" });

  useEffect(() => {
    let live = true;
    let observer: ResizeObserver | null = null;
    loadEcharts().then(
      ({ init }) => {
        const element = container.current;
        if (!live || !element) return;
        const instance = init(element, null, { renderer: "canvas" });
        chart.current = instance;
        observer = new ResizeObserver(() => instance.resize());
        observer.observe(element);
        setLoad({ status: "ready" });
      },
      (error: unknown) => live && setLoad({ status: "failed", error }),
    );
    return () => {
      live = false;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    if (load.status === "ready") chart.current?.setOption(option, { notMerge: true });
  }, [load.status, option]);

  return (
    <div class="chart-frame">
      <div ref={container} class="chart-canvas" role="img" aria-label={label} />
      {load.status === "loading" && (
        <div class="chart-overlay" role="status">
          <Spinner />
          <span class="visually-hidden">Loading the chart…</span>
        </div>
      )}
      {load.status === "failed" && (
        <div class="chart-overlay" role="alert">
          The chart could not be drawn: {describeError(load.error)} The table view shows the same numbers.
        </div>
      )}
    </div>
  );
}
