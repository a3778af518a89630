export const round = (x: number, digits = 3) => Number(x.toFixed(digits));

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export const median = (values: number[]) => quantile(values, 0.5);
export const p95 = (values: number[]) => quantile(values, 0.95);
export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export function summary(values: number[], digits = 3) {
  return {
    n: values.length,
    min: round(Math.min(...values), digits),
    median: round(median(values), digits),
    p95: round(p95(values), digits),
    max: round(Math.max(...values), digits),
    mean: round(mean(values), digits),
  };
}
