/**
 * Sizes and durations as people type them (50MiB, 1.5GB, 10%, 30s, 10m, 1h30m) and as we print them.
 * Decimal units (kB, MB, GB) are powers of 1000, binary units (KiB, MiB, GiB) powers of 1024; "K", "M", "G" alone are
 * read as binary, as in `ulimit`, `docker --memory` and Kubernetes' Ki/Mi/Gi.
 */

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  ki: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  mi: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
  gi: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1000 ** 4,
  tib: 1024 ** 4,
  ti: 1024 ** 4,
};

export type SizeSpec = { kind: "bytes"; bytes: number } | { kind: "percent"; percent: number };

export type UnitParse<T> = { ok: true; value: T } | { ok: false; message: string };

export function parseSize(text: string): UnitParse<SizeSpec> {
  const t = text.trim();
  const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (pct) return { ok: true, value: { kind: "percent", percent: Number(pct[1]) } };
  const m = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(t);
  // A bare number is refused, 0 aside: `--max-growth 50` meant 50 MiB, and read as bytes it failed every run.
  if (m && m[2] === "" && Number(m[1]) !== 0) return { ok: false, message: bareSize(m[1]!) };
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase() || "b"] : undefined;
  if (!m || unit === undefined) {
    return {
      ok: false,
      message: `"${text}" is not a size: use a number with B, KiB, MiB, GiB (or kB, MB, GB), or a percentage like 10%`,
    };
  }
  return { ok: true, value: { kind: "bytes", bytes: Math.round(Number(m[1]) * unit) } };
}

/** What a size without a unit is told (the pytest plugin says the same: memleak_pytest.py). */
export const bareSize = (n: string) => `"${n}" has no unit: did you mean ${n}MiB? (${n}B for bytes)`;

const DURATION_UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** Seconds. A bare number is seconds. */
export function parseDuration(text: string): UnitParse<number> {
  const t = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(t)) return { ok: true, value: Number(t) };
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== t) {
    return { ok: false, message: `"${text}" is not a duration: use e.g. 500ms, 30s, 10m, 1h30m` };
  }
  return { ok: true, value: parts.reduce((sum, p) => sum + Number(p[1]) * DURATION_UNITS[p[2]!]!, 0) };
}

/** 1536 → "1.5 KiB"; binary units, 3 significant digits. */
export function formatBytes(bytes: number | undefined | null): string {
  if (bytes === undefined || bytes === null || !Number.isFinite(bytes)) return "–";
  const sign = bytes < 0 ? "-" : "";
  let v = Math.abs(bytes);
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  // 1000-1023 of a unit is shown in the next (1021 KiB is 1.00 MiB): three significant digits, never four.
  while (v >= 999.5 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = i === 0 || v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${sign}${v.toFixed(digits)} ${units[i]}`;
}

/** A change in bytes: "+12.0 MiB" for growth, "-3.00 MiB" for a drop, "0 B" for none, "–" when unknown. */
export const signedBytes = (n: number | undefined) => (n === undefined ? "–" : `${n > 0 ? "+" : ""}${formatBytes(n)}`);

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "–";
  if (seconds < 0.9995) return `${Math.round(seconds * 1000)}ms`;
  if (seconds < 59.95) return `${Number(seconds.toFixed(1))}s`;
  // Whole seconds first: 299.6 s is 5m00s, not 4m60s.
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, "0")}m` : `${m}m${String(s).padStart(2, "0")}s`;
}

const RATE_UNITS: Record<string, number> = {
  ms: 0.001,
  s: 1,
  sec: 1,
  m: 60,
  min: 60,
  h: 3600,
  hour: 3600,
  d: 86400,
  day: 86400,
};

/** "10MiB/h", "1.5MB/min", "512KiB/s" → bytes per second. */
export function parseRate(text: string): UnitParse<number> {
  const slash = text.lastIndexOf("/");
  const size = slash > 0 ? parseSize(text.slice(0, slash)) : undefined;
  const per =
    slash > 0
      ? RATE_UNITS[
          text
            .slice(slash + 1)
            .trim()
            .toLowerCase()
        ]
      : undefined;
  if (!size?.ok || size.value.kind !== "bytes" || per === undefined) {
    return { ok: false, message: `"${text}" is not a rate: use a size per time, e.g. 10MiB/h, 1MB/min, 512KiB/s` };
  }
  return { ok: true, value: size.value.bytes / per };
}
