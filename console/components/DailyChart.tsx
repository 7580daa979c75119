/** DailyChart: one series per day as bars (uPlot), sized to its container so it never overflows a narrow screen. */
import { useEffect, useRef } from "react";
import uPlot from "uplot";

const HALF_DAY_SECONDS = 12 * 60 * 60;

/** dayRange answers the x range that shows every day's bar whole: half a day before the first and after the last, as
 * each bar is centred on its day's start (without it the first and last bars — today's — were cut in half). */
export function dayRange(min: number, max: number): [number, number] {
  return [min - HALF_DAY_SECONDS, max + HALF_DAY_SECONDS];
}

interface Props {
  /** days are UTC days, `YYYY-MM-DD`. */
  days: string[];
  values: number[];
  label: string;
}

/** DailyChart draws one value per day as bars. */
export function DailyChart({ days, values, label }: Props) {
  const host = useRef<HTMLDivElement>(null);
  // Keyed on the contents: a refetch with the same figures keeps the chart as it is.
  const series = JSON.stringify([days, values]);
  useEffect(() => {
    const element = host.current!;
    const x = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: 220,
        legend: { show: false },
        series: [{}, { label, stroke: "#1a73e8", fill: "rgba(26,115,232,0.35)", paths: uPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false } }],
        axes: [{}, { size: 50 }],
        scales: { x: { time: true, range: (_u, min, max) => dayRange(min, max) }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      },
      [x, values],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [series, label]);
  return <div className="chart" ref={host} role="img" aria-label={`${label}, by day`} />;
}
