/** A time-series line chart on uPlot (small, canvas-drawn). */
import 'uplot/dist/uPlot.min.css';

import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface Series {
  label: string;
  color: string;
  values: Array<number | null>;
}

export function TimeChart({ title, times, series, height = 160 }: { title: string; times: number[]; series: Series[]; height?: number }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = series.map((s) => s.label).join('|');

  useEffect(() => {
    if (!host.current) return undefined;
    const width = Math.max(240, host.current.clientWidth);
    plot.current = new uPlot(
      {
        width,
        height,
        legend: { show: true },
        // The last five minutes, so a few samples do not stretch over years.
        scales: { x: { time: true, range: (_u, _min, max) => [max - 300, max + 5] } },
        cursor: { show: true },
        axes: [{ stroke: '#555' }, { stroke: '#555', size: 50 }],
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: true }))],
      },
      [times.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData,
      host.current,
    );
    const observer = new ResizeObserver(() => host.current && plot.current?.setSize({ width: Math.max(240, host.current.clientWidth), height }));
    observer.observe(host.current);
    return () => {
      observer.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // Rebuilt only when the series change shape; data updates go through setData below.
  }, [shape, height]);

  useEffect(() => {
    plot.current?.setData([times.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData);
  }, [times, series]);

  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} role="img" aria-label={title} />
    </figure>
  );
}
