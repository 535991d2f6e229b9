// Effects with their intervals as horizontal bars on one axis around "no change" (SVG, no chart
// library): a bar from the interval's lower to its upper end, a dot at the estimate, a line at
// 0, and for a guardrail the harm boundary. Labels are SVG text, so variant keys show literally.

export interface IntervalRow {
  label: string;
  estimate: number;
  lower: number;
  upper: number;
  tone: "better" | "worse" | "neutral";
  /** Read by screen readers and shown on hover. */
  description: string;
}

interface IntervalChartProps {
  rows: readonly IntervalRow[];
  /** How the axis writes a value ("+40.0%"). */
  format(value: number): string;
  /** A guardrail's harm boundary, drawn as a line. */
  boundary?: number | null;
  caption: string;
}

const width = 640;
const labelWidth = 140;
const plotLeft = labelWidth + 12;
const plotRight = width - 16;
const rowHeight = 34;
const axisHeight = 26;

export function IntervalChart({ rows, format, boundary, caption }: IntervalChartProps) {
  const extent = Math.max(1e-9, ...rows.flatMap((row) => [Math.abs(row.lower), Math.abs(row.upper), Math.abs(row.estimate)]), Math.abs(boundary ?? 0)) * 1.15;
  const x = (value: number) => plotLeft + ((value + extent) / (2 * extent)) * (plotRight - plotLeft);
  const height = rows.length * rowHeight + axisHeight;
  const plotBottom = rows.length * rowHeight;
  return (
    <figure class="interval-chart">
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-label={caption} class="interval-svg">
        <line class="interval-zero" x1={x(0)} x2={x(0)} y1={0} y2={plotBottom} />
        {boundary !== undefined && boundary !== null && (
          <line class="interval-boundary" x1={x(boundary)} x2={x(boundary)} y1={0} y2={plotBottom}>
            <title>Harm boundary {format(boundary)}</title>
          </line>
        )}
        {rows.map((row, index) => {
          const middle = index * rowHeight + rowHeight / 2;
          const left = x(Math.min(row.lower, row.upper));
          const right = x(Math.max(row.lower, row.upper));
          return (
            <g key={row.label} class={`interval-row interval-${row.tone}`}>
              <title>{row.description}</title>
              <text class="interval-label" x={labelWidth} y={middle} text-anchor="end" dominant-baseline="middle">{row.label}</text>
              <rect class="interval-bar" x={left} y={middle - 5} width={Math.max(2, right - left)} height={10} rx={5} />
              <circle class="interval-estimate" cx={x(row.estimate)} cy={middle} r={5} />
            </g>
          );
        })}
        <line class="interval-axis" x1={plotLeft} x2={plotRight} y1={plotBottom + 2} y2={plotBottom + 2} />
        {([[-extent, "start"], [0, "middle"], [extent, "end"]] as const).map(([tick, anchor]) => (
          <text key={tick} class="interval-tick" x={x(tick)} y={plotBottom + 18} text-anchor={anchor}>{format(tick)}</text>
        ))}
      </svg>
      <figcaption class="visually-hidden">{caption}</figcaption>
    </figure>
  );
}
